package bench

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSignFlipP(t *testing.T) {
	ones := func(n int) []float64 {
		d := make([]float64, n)
		for i := range d {
			d[i] = 1
		}
		return d
	}
	tests := []struct {
		name string
		d    []float64
		want float64
		tol  float64
	}{
		{"no rounds", nil, 1, 0},
		{"all zero", []float64{0, 0, 0}, 1, 0},
		{"balanced", []float64{1, -1}, 1, 0},
		// ±1 ±2 ±3: sums 6 4 2 0 0 -2 -4 -6; |s| >= 6 in 2 of 8.
		{"small, by hand", []float64{1, 2, 3}, 0.25, 0},
		// Ten rounds all the same way: the two extreme patterns of 1024.
		{"ten rounds agree", ones(10), 2.0 / 1024, 1e-15},
		{"nine of ten agree", append(ones(9), -1), 22.0 / 1024, 1e-15},
		// Past 16 rounds, a seeded draw: p is (hits+1)/(draws+1).
		{"twenty rounds agree", ones(20), 1.0 / (signFlipDraws + 1), 1e-12},
	}
	for _, tc := range tests {
		if got := SignFlipP(tc.d, 1); math.Abs(got-tc.want) > tc.tol {
			t.Errorf("%s: p = %v, want %v", tc.name, got, tc.want)
		}
	}
	if f := SignFlipFloor(10); f != 2.0/1024 {
		t.Errorf("floor(10) = %v", f)
	}
	if SignFlipFloor(7) < Alpha || SignFlipFloor(8) >= Alpha {
		t.Errorf("8 rounds is the least that can reach Alpha: floor(7)=%v floor(8)=%v", SignFlipFloor(7), SignFlipFloor(8))
	}
}

func TestOrder(t *testing.T) {
	abba := []bool{true, false, false, true, true, false, false, true, true, false}
	if got := Order(10, 0); !slices.Equal(got, abba) {
		t.Errorf("Order(10, 0) = %v, want ABBA %v", got, abba)
	}
	shuffled := Order(10, 7)
	if slices.Equal(shuffled, abba) || !slices.Equal(shuffled, Order(10, 7)) {
		t.Errorf("Order(10, 7) = %v: want a shuffle, the same for the same seed", shuffled)
	}
	if n := count(shuffled); n != 5 {
		t.Errorf("Order(10, 7) has A first in %d rounds, want 5", n)
	}
}

func count(b []bool) int {
	n := 0
	for _, x := range b {
		if x {
			n++
		}
	}
	return n
}

// synthRound is one process's series: n calls around a median that is
// the process's own (each process differs, as real ones do: CPU, cache,
// scheduling), times scale.
func synthRound(rng *rand.Rand, n int, scale float64) []int64 {
	process := math.Exp(0.15 * rng.NormFloat64())
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(100e3 * scale * process * math.Exp(0.3*rng.NormFloat64()))
	}
	return out
}

func synthRounds(rng *rand.Rand, rounds, n int, scale float64) [][]int64 {
	out := make([][]int64, rounds)
	for r := range out {
		out[r] = synthRound(rng, n, scale)
	}
	return out
}

// The A/A check on synthetic rounds: a server against itself is called
// different in about Alpha of comparisons over rounds, while a test over
// the calls of one process each (what --vs did before) calls it different
// most of the time; a server twice as slow is different every time, in
// the right direction. The live check is scripts/bench-aa.sh.
func TestCompareRoundsAA(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 42))
	const trials = 300
	roundsFP, callsFP := 0, 0
	for range trials {
		a, b := synthRounds(rng, 10, 40, 1), synthRounds(rng, 10, 40, 1)
		if c := CompareRounds("x", a, b); c.Significant {
			roundsFP++
		}
		// One process each, its calls taken as independent samples.
		if _, p := MannWhitney(floats(a[0]), floats(b[0])); p < Alpha {
			callsFP++
		}
	}
	t.Logf("A/A: %d of %d significant over rounds, %d of %d over one process's calls", roundsFP, trials, callsFP, trials)
	if roundsFP > trials*2/100 {
		t.Errorf("A/A over rounds: %d of %d significant, want about %.0f%% (at most 2%%)", roundsFP, trials, Alpha*100)
	}
	if callsFP < trials/3 {
		t.Errorf("A/A over one process's calls: only %d of %d significant; the model lacks the process effect it is meant to show", callsFP, trials)
	}
	for i := range 50 {
		a, b := synthRounds(rng, 10, 40, 1), synthRounds(rng, 10, 40, 2)
		c := CompareRounds("x", a, b)
		if !c.Significant || c.Ratio <= 1 || c.Low <= 1 || c.Rounds != 10 {
			t.Fatalf("trial %d, B twice as slow: %+v, want significant, ratio and interval above 1", i, c)
		}
	}
}

// The ratio is that of the p50s the two sides show: the pooled samples.
func TestCompareRoundsRatioIsTheP50s(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	a, b := synthRounds(rng, 6, 50, 1), synthRounds(rng, 6, 50, 1.3)
	b[2] = nil // a round where B answered nothing: out of the test, its samples absent alike
	c := CompareRounds("x", a, b)
	pa, pb := Summarize(slices.Concat(a...)).P50, Summarize(slices.Concat(b...)).P50
	if math.Abs(c.Ratio-pb/pa) > 1e-12 {
		t.Errorf("ratio %v, want p50(B)/p50(A) = %v", c.Ratio, pb/pa)
	}
	if c.Rounds != 5 || c.Low > c.Ratio || c.High < c.Ratio {
		t.Errorf("%+v: want 5 paired rounds and an interval around the ratio", c)
	}
	if again := CompareRounds("x", a, b); again != c {
		t.Errorf("not deterministic: %+v then %+v", c, again)
	}
	if z := CompareRounds("x", nil, nil); z.Ratio != 0 || z.P != 1 || z.Significant {
		t.Errorf("no rounds: %+v", z)
	}
}

// The bootstrap's weighted median is the median of the resample built in
// full.
func TestWeightedMedian(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for trial := range 200 {
		rounds := make([][]float64, 1+rng.IntN(6))
		for r := range rounds {
			for range rng.IntN(5) {
				rounds[r] = append(rounds[r], float64(rng.IntN(20)))
			}
		}
		w := make([]int, len(rounds))
		var full []float64
		for r := range w {
			w[r] = rng.IntN(3)
			for range w[r] {
				full = append(full, rounds[r]...)
			}
		}
		got, ok := weightedMedian(tag(rounds), w)
		slices.Sort(full)
		if ok != (len(full) > 0) || (ok && got != Percentile(full, 50)) {
			t.Fatalf("trial %d: %v %v, want %v of %v", trial, got, ok, Percentile(full, 50), full)
		}
	}
}
