package bench

import (
	"math"
	"slices"
	"testing"
)

func approx(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestPercentile(t *testing.T) {
	oneToTen := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	tests := []struct {
		name   string
		sorted []float64
		p      float64
		want   float64
	}{
		{"empty", nil, 50, 0},
		{"1..10 p0", oneToTen, 0, 1},
		{"1..10 p25", oneToTen, 25, 3.25}, // h = 9*0.25 = 2.25 → 3 + 0.25
		{"1..10 p50", oneToTen, 50, 5.5},
		{"1..10 p90", oneToTen, 90, 9.1},
		{"1..10 p99", oneToTen, 99, 9.91},
		{"1..10 p100", oneToTen, 100, 10},
		{"single p0", []float64{7}, 0, 7},
		{"single p50", []float64{7}, 50, 7},
		{"single p99.9", []float64{7}, 99.9, 7},
		{"two p0", []float64{10, 20}, 0, 10},
		{"two p50", []float64{10, 20}, 50, 15},
		{"two p90", []float64{10, 20}, 90, 19},
		{"two p100", []float64{10, 20}, 100, 20},
		{"clamp low", oneToTen, -5, 1},
		{"clamp high", oneToTen, 150, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Percentile(tt.sorted, tt.p); !approx(got, tt.want, 1e-9) {
				t.Errorf("Percentile(%v, %v) = %v, want %v", tt.sorted, tt.p, got, tt.want)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		name                               string
		in                                 []int64
		n                                  int
		min, max, mean, stddev, p50, first float64
	}{
		{"empty", nil, 0, 0, 0, 0, 0, 0, 0},
		{"single", []int64{42}, 1, 42, 42, 42, 0, 42, 42},
		// mean 5; Σ(x-5)² = 9+1+1+1+0+0+4+16 = 32; sqrt(32/7) = 2.138089935...
		{"classic", []int64{2, 4, 4, 4, 5, 5, 7, 9}, 8, 2, 9, 5, 2.138089935299395, 4.5, 2},
		// unsorted input: First is the first as given, not the minimum.
		{"unsorted", []int64{30, 10, 20}, 3, 10, 30, 20, 10, 20, 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Summarize(tt.in)
			if s.N != tt.n || s.Errors != 0 || s.Timeouts != 0 {
				t.Errorf("N/Errors/Timeouts = %d/%d/%d, want %d/0/0", s.N, s.Errors, s.Timeouts, tt.n)
			}
			checks := []struct {
				name      string
				got, want float64
			}{
				{"Min", s.Min, tt.min}, {"Max", s.Max, tt.max}, {"Mean", s.Mean, tt.mean},
				{"Stddev", s.Stddev, tt.stddev}, {"P50", s.P50, tt.p50}, {"First", s.First, tt.first},
			}
			for _, c := range checks {
				if !approx(c.got, c.want, 1e-9) {
					t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
				}
			}
			if !slices.Equal(s.Samples, tt.in) || s.Samples == nil {
				t.Errorf("Samples = %v, want copy of %v", s.Samples, tt.in)
			}
		})
	}
}

func TestSummarizePercentilesAndCopy(t *testing.T) {
	in := []int64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1} // reverse of 1..10
	s := Summarize(in)
	want := map[string][2]float64{
		"P50": {s.P50, 5.5}, "P90": {s.P90, 9.1}, "P95": {s.P95, 9.55},
		"P99": {s.P99, 9.91}, "P999": {s.P999, 9.991},
	}
	for name, gw := range want {
		if !approx(gw[0], gw[1], 1e-9) {
			t.Errorf("%s = %v, want %v", name, gw[0], gw[1])
		}
	}
	if in[0] != 10 {
		t.Fatalf("input was modified: %v", in)
	}
	s.Samples[0] = -1
	if in[0] != 10 {
		t.Fatalf("Samples aliases the input")
	}
}

func TestOutliers(t *testing.T) {
	tests := []struct {
		name string
		in   []int64
		want []int
	}{
		// median 100; |x-100| sorted = 0,0,0,1,1,1,1,2,2,4900 → MAD 1.
		// 5000: 0.6745*4900 ≫ 3.5; 98/102: 0.6745*2 = 1.35 → not flagged.
		{"one spike", []int64{100, 101, 99, 100, 102, 98, 100, 5000, 101, 99}, []int{7}},
		{"spike first", []int64{9000, 101, 99, 100, 102, 98, 100, 100, 101, 99}, []int{0}},
		{"low spike", []int64{1000, 1010, 990, 1000, 1020, 980, 1000, 1, 1010, 990}, []int{7}},
		{"constant", []int64{50, 50, 50, 50, 50, 50}, nil},
		// MAD == 0 even with a spike (more than half the values equal the median).
		{"mad zero", []int64{50, 50, 50, 50, 50, 9999}, nil},
		{"no spike", []int64{100, 101, 99, 100, 102, 98, 100, 103, 101, 99}, nil},
		{"empty", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Summarize(tt.in).Outliers; !slices.Equal(got, tt.want) {
				t.Errorf("Outliers = %v, want %v", got, tt.want)
			}
		})
	}
}

// ms makes milliseconds into ns samples.
func ms(v ...float64) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x * 1e6)
	}
	return out
}

func TestFirstSlow(t *testing.T) {
	tests := []struct {
		name string
		in   []int64
		want bool
	}{
		// In ms (×1e6 ns): rest sorted 90,100,100,105,110 → P50 100; 1000 > 300.
		{"cold start", ms(1000, 100, 110, 90, 100, 105), true},
		{"exactly 3x is not slow", ms(300, 100, 110, 90, 100, 105), false},
		{"just over 3x", ms(301, 100, 110, 90, 100, 105), true},
		{"warm", ms(120, 100, 110, 90, 100, 105), false},
		{"too few samples", ms(1000, 100, 100, 100), false},
		{"minimum n=5", ms(1000, 100, 100, 100, 100), true},
		// The floor: over 3× but short of 50 ms is nothing a host feels
		// (a first ping of 0.3 ms against 0.1 ms).
		{"3x but under the floor", []int64{300_000, 100_000, 100_000, 100_000, 100_000}, false},
		{"just under the floor", ms(49.9, 10, 10, 10, 10), false},
		{"at the floor", ms(50, 10, 10, 10, 10), true},
		{"empty", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Summarize(tt.in).FirstSlow; got != tt.want {
				t.Errorf("FirstSlow = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMannWhitney(t *testing.T) {
	tests := []struct {
		name  string
		a, b  []float64
		wantU float64
		wantP float64
		tol   float64
	}{
		// No ties, n1 = n2 = 5, n = 10. R_a = 1+2+3+4+5 = 15, U = 15 - 15 = 0.
		// sigma² = 25/12 * 11 = 22.9167, sigma = 4.78714.
		// z = (|0 - 12.5| - 0.5)/4.78714 = 2.50672; p = erfc(2.50672/√2)
		// = 2(1 - Φ(2.5067)) ≈ 2 × 0.006093 = 0.012186
		// (scipy.stats.mannwhitneyu(..., method="asymptotic") gives 0.01219).
		{"separated", []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 0, 0.012186, 5e-5},
		// Mirror: U for a = n1 n2 - 0 = 25, same two-sided p.
		{"separated reversed", []float64{6, 7, 8, 9, 10}, []float64{1, 2, 3, 4, 5}, 25, 0.012186, 5e-5},
		// Identical samples: pooled ranks 1.5,1.5,3.5,3.5,5.5,5.5; R_a = 10.5,
		// U = 10.5 - 6 = 4.5 = n1 n2 / 2 → |U - 4.5| - 0.5 < 0 → z = 0, p = 1.
		{"identical", []float64{1, 2, 3}, []float64{1, 2, 3}, 4.5, 1, 1e-12},
		// With ties. Pooled: 1,2,2,2,3,3,4,5 (n = 8). Ranks: 1→1, 2→3 (avg of
		// 2,3,4), 3→5.5, 4→7, 5→8. R_a = 1+3+3+5.5 = 12.5, U = 12.5 - 10 = 2.5.
		// Σ(t³-t) = (27-3) + (8-2) = 30; sigma² = 16/12 × (9 - 30/56) = 11.285714,
		// sigma = 3.359422. z = (|2.5 - 8| - 0.5)/3.359422 = 1.488351;
		// p = erfc(1.488351/√2) = 2(1 - Φ(1.48835)) ≈ 0.13666.
		{"ties", []float64{1, 2, 2, 3}, []float64{2, 3, 4, 5}, 2.5, 0.13666, 5e-4},
		// Unequal sizes, no ties: a = 1,3,5 ; b = 2,4,6,8,10 (n = 8).
		// Ranks of a: 1,3,5 → R_a = 9, U = 9 - 6 = 3. sigma² = 15/12 × 9 = 11.25,
		// sigma = 3.354102; z = (|3 - 7.5| - 0.5)/3.354102 = 1.192570;
		// p = 2(1 - Φ(1.19257)) ≈ 0.23304.
		{"unequal sizes", []float64{1, 3, 5}, []float64{2, 4, 6, 8, 10}, 3, 0.23304, 5e-4},
		// All values tied: sigma² = n1n2/12 × (6 - (125-5)/20) = 0 → p = 1.
		// Every rank is 3, R_a = 6, U = 6 - 3 = 3.
		{"all tied", []float64{3, 3}, []float64{3, 3, 3}, 3, 1, 0},
		{"empty a", nil, []float64{1, 2}, 0, 1, 0},
		{"empty b", []float64{1, 2}, nil, 0, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, p := MannWhitney(tt.a, tt.b)
			if !approx(u, tt.wantU, 1e-12) {
				t.Errorf("U = %v, want %v", u, tt.wantU)
			}
			if !approx(p, tt.wantP, tt.tol) {
				t.Errorf("p = %v, want %v ± %v", p, tt.wantP, tt.tol)
			}
		})
	}
}

func TestMannWhitneyExactFormula(t *testing.T) {
	// Recompute the separated case from the closed form to tighter tolerance.
	sigma := math.Sqrt(25.0 / 12 * 11)
	want := math.Erfc((12.5 - 0.5) / sigma / math.Sqrt2)
	_, p := MannWhitney([]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10})
	if !approx(p, want, 1e-15) {
		t.Fatalf("p = %v, want %v", p, want)
	}
}

func ratioFixture() (a, b []float64) {
	for i := range 40 {
		v := 1000 + float64(i%7)*3
		a = append(a, v)
		b = append(b, 2*v)
	}
	return a, b
}

// perRound makes each value a round of its own: the bootstrap over
// rounds is then the plain bootstrap over values.
func perRound(xs []float64) [][]float64 {
	out := make([][]float64, len(xs))
	for i, x := range xs {
		out[i] = []float64{x}
	}
	return out
}

func TestRatioCI(t *testing.T) {
	a, b := ratioFixture()

	ratio, lo, hi := RoundsRatioCI(perRound(a), perRound(b), 2000, 42)
	if !approx(ratio, 2, 1e-12) {
		t.Errorf("ratio = %v, want 2", ratio)
	}
	if !(lo <= 2 && 2 <= hi) {
		t.Errorf("CI (%v, %v) does not contain 2", lo, hi)
	}
	if hi-lo > 0.05 || lo < 1.95 || hi > 2.05 {
		t.Errorf("CI (%v, %v) is not narrow", lo, hi)
	}

	// Deterministic for a fixed seed.
	r2, lo2, hi2 := RoundsRatioCI(perRound(a), perRound(b), 2000, 42)
	if r2 != ratio || lo2 != lo || hi2 != hi {
		t.Errorf("same seed gave (%v,%v,%v) then (%v,%v,%v)", ratio, lo, hi, r2, lo2, hi2)
	}
	// resamples <= 0 means 2000.
	r3, lo3, hi3 := RoundsRatioCI(perRound(a), perRound(b), 0, 42)
	if r3 != ratio || lo3 != lo || hi3 != hi {
		t.Errorf("resamples=0 gave (%v,%v,%v), want (%v,%v,%v)", r3, lo3, hi3, ratio, lo, hi)
	}
}

func TestRatioCIWideWhenNoisy(t *testing.T) {
	a := []float64{10, 50, 100, 20, 80, 30, 90, 60, 40, 70}
	b := []float64{15, 120, 200, 30, 170, 60, 190, 110, 90, 140}
	ratio, lo, hi := RoundsRatioCI(perRound(a), perRound(b), 1000, 7)
	// median(a) = 55, median(b) = 115 → 2.0909...
	if !approx(ratio, 115.0/55, 1e-12) {
		t.Errorf("ratio = %v, want %v", ratio, 115.0/55)
	}
	if !(lo < ratio && ratio < hi) || hi-lo < 0.2 {
		t.Errorf("CI (%v, %v) should be wide and contain %v", lo, hi, ratio)
	}
}

func TestRatioCIDegenerate(t *testing.T) {
	tests := []struct {
		name string
		a, b []float64
	}{
		{"median a zero", []float64{0, 0, 0, 5}, []float64{1, 2, 3}},
		{"empty a", nil, []float64{1, 2, 3}},
		{"empty b", []float64{1, 2, 3}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, lo, hi := RoundsRatioCI(perRound(tt.a), perRound(tt.b), 100, 1)
			if r != 0 || lo != 0 || hi != 0 {
				t.Errorf("got (%v, %v, %v), want (0, 0, 0)", r, lo, hi)
			}
		})
	}
}

func TestHistogram(t *testing.T) {
	tests := []struct {
		name       string
		in         []float64
		n          int
		wantEdges  []float64
		wantCounts []int
	}{
		// width 1.8: 0,1→bin0; 2,3→1; 4,5→2; 6,7→3; 8,9→4 (max in last bin).
		{"0..9 in 5", []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 5,
			[]float64{0, 1.8, 3.6, 5.4, 7.2}, []int{2, 2, 2, 2, 2}},
		{"skewed", []float64{1, 1, 1, 2, 10}, 3,
			[]float64{1, 4, 7}, []int{4, 0, 1}},
		{"n<1 → 1", []float64{3, 1, 2}, 0, []float64{1}, []int{3}},
		{"all equal", []float64{5, 5, 5, 5}, 4, []float64{5}, []int{4}},
		{"empty", nil, 4, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			edges, counts := Histogram(tt.in, tt.n)
			if len(edges) != len(tt.wantEdges) {
				t.Fatalf("edges = %v, want %v", edges, tt.wantEdges)
			}
			for i := range edges {
				if !approx(edges[i], tt.wantEdges[i], 1e-9) {
					t.Errorf("edges = %v, want %v", edges, tt.wantEdges)
					break
				}
			}
			if !slices.Equal(counts, tt.wantCounts) {
				t.Errorf("counts = %v, want %v", counts, tt.wantCounts)
			}
		})
	}
}

func TestHistogramCountsSumToN(t *testing.T) {
	var xs []float64
	for i := range 997 {
		xs = append(xs, float64((i*7919)%1013)+0.25*float64(i%3))
	}
	for _, n := range []int{1, 2, 7, 10, 50, 1000} {
		edges, counts := Histogram(xs, n)
		if len(edges) != n || len(counts) != n {
			t.Fatalf("n=%d: got %d edges, %d counts", n, len(edges), len(counts))
		}
		sum := 0
		for _, c := range counts {
			sum += c
		}
		if sum != len(xs) {
			t.Errorf("n=%d: counts sum to %d, want %d", n, sum, len(xs))
		}
	}
}

// TestSignFlipLevel: the test's exact level, what a fair A/A comparison
// is called significant at: over every sign pattern of R rounds' log
// ratios (distinct magnitudes, as measured ones are), the share with
// p < Alpha. With 10 rounds p = 10/1024 = 0.0098 is the largest p under
// 0.01, so the level is 10/1024, not 8/1024: twenty fair runs have a
// 1 - (1 - 10/1024)^20 = 18% chance that one of them is significant.
func TestSignFlipLevel(t *testing.T) {
	for _, tc := range []struct {
		rounds int
		want   float64
	}{{7, 0}, {8, 2.0 / 256}, {10, 10.0 / 1024}, {12, 40.0 / 4096}} {
		d := make([]float64, tc.rounds)
		sig := 0
		for mask := 0; mask < 1<<tc.rounds; mask++ {
			for i := range d {
				d[i] = 0.01 * math.Sqrt(float64(i+2)) // distinct, no subset sums alike
				if mask&(1<<i) != 0 {
					d[i] = -d[i]
				}
			}
			if SignFlipP(d, 1) < Alpha {
				sig++
			}
		}
		got := float64(sig) / float64(int(1)<<tc.rounds)
		if math.Abs(got-tc.want) > 1e-12 || got > Alpha {
			t.Errorf("%d rounds: level %.5f (%d of %d patterns), want %.5f", tc.rounds, got, sig, 1<<tc.rounds, tc.want)
		}
	}
}
