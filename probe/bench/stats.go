// Package bench holds pure-Go statistics for latency benchmarking:
// summaries of duration series, percentiles, the Mann-Whitney U test,
// a bootstrap confidence interval for a ratio of medians, and histograms.
package bench

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Stats summarises one series of durations (nanoseconds).
type Stats struct {
	N                        int     // successful samples
	Errors, Timeouts         int     // counted, never dropped (set by the caller; Summarize leaves them 0)
	Min, Max, Mean, Stddev   float64 // ns; Stddev is the sample standard deviation (n-1), 0 for n<2
	P50, P90, P95, P99, P999 float64 // ns
	First                    float64 // ns, the first sample as given (before sorting), 0 if none
	FirstSlow                bool    // First > 3 × P50 of the rest (the rest = samples[1:]; needs n >= 5)
	Outliers                 []int   // input indexes whose |0.6745 (x - median) / MAD| > 3.5; none when MAD == 0
	Samples                  []int64 // the input, in input order, copied
}

// outlierThreshold is the modified z-score above which a sample is an
// outlier (Iglewicz and Hoaglin).
const outlierThreshold = 3.5

// Summarize computes Stats for samples (nanoseconds). The input is not
// modified.
func Summarize(samples []int64) Stats {
	s := Stats{N: len(samples), Samples: slices.Clone(samples)}
	if s.Samples == nil {
		s.Samples = []int64{}
	}
	if len(samples) == 0 {
		return s
	}
	xs := make([]float64, len(samples))
	for i, v := range samples {
		xs[i] = float64(v)
	}
	s.First = xs[0]

	var sum float64
	for _, x := range xs {
		sum += x
	}
	s.Mean = sum / float64(len(xs))
	if len(xs) >= 2 {
		var ss float64
		for _, x := range xs {
			d := x - s.Mean
			ss += d * d
		}
		s.Stddev = math.Sqrt(ss / float64(len(xs)-1))
	}

	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	s.Min = sorted[0]
	s.Max = sorted[len(sorted)-1]
	s.P50 = Percentile(sorted, 50)
	s.P90 = Percentile(sorted, 90)
	s.P95 = Percentile(sorted, 95)
	s.P99 = Percentile(sorted, 99)
	s.P999 = Percentile(sorted, 99.9)

	if len(xs) >= 5 {
		rest := slices.Clone(xs[1:])
		slices.Sort(rest)
		s.FirstSlow = s.First > 3*Percentile(rest, 50)
	}

	s.Outliers = outliers(xs, s.P50)
	return s
}

// outliers returns the indexes of xs whose modified z-score exceeds
// outlierThreshold. median is the median of xs.
func outliers(xs []float64, median float64) []int {
	dev := make([]float64, len(xs))
	for i, x := range xs {
		dev[i] = math.Abs(x - median)
	}
	slices.Sort(dev)
	mad := Percentile(dev, 50)
	if mad == 0 {
		return nil
	}
	var out []int
	for i, x := range xs {
		if math.Abs(0.6745*(x-median)/mad) > outlierThreshold {
			out = append(out, i)
		}
	}
	return out
}

// Percentile of sorted float64 data, p in [0,100], linear interpolation
// between closest ranks (the "R-7"/Excel/NumPy default method). Empty → 0.
// p outside [0,100] is clamped.
func Percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	if n == 1 || p <= 0 {
		return sorted[0]
	}
	if p >= 100 {
		return sorted[n-1]
	}
	h := float64(n-1) * p / 100
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return sorted[n-1]
	}
	frac := h - float64(lo)
	return sorted[lo] + frac*(sorted[lo+1]-sorted[lo])
}

// median returns the median of xs without modifying it.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return Percentile(s, 50)
}

// MannWhitney returns the U statistic (for a) and the two-sided p-value of
// the Mann-Whitney U test using the normal approximation with tie
// correction and continuity correction. For n1 or n2 == 0 return U=0, p=1.
// If all values are tied (sigma == 0) p = 1.
//
// U = R_a - n1(n1+1)/2, where R_a is the sum of the (average) ranks of a in
// the pooled sample; sigma² = n1 n2 / 12 * ((n+1) - Σ(t³-t)/(n(n-1)));
// z = max(0, |U - n1 n2/2| - 0.5) / sigma; p = erfc(z/√2).
func MannWhitney(a, b []float64) (u float64, p float64) {
	n1, n2 := len(a), len(b)
	if n1 == 0 || n2 == 0 {
		return 0, 1
	}
	type obs struct {
		v    float64
		inA  bool
		rank float64
	}
	pooled := make([]obs, 0, n1+n2)
	for _, v := range a {
		pooled = append(pooled, obs{v: v, inA: true})
	}
	for _, v := range b {
		pooled = append(pooled, obs{v: v})
	}
	slices.SortStableFunc(pooled, func(x, y obs) int {
		switch {
		case x.v < y.v:
			return -1
		case x.v > y.v:
			return 1
		}
		return 0
	})

	n := len(pooled)
	var tieSum float64 // Σ(t³ - t)
	for i := 0; i < n; {
		j := i + 1
		for j < n && pooled[j].v == pooled[i].v {
			j++
		}
		// Positions i..j-1 (0-based) hold ranks i+1..j; average them.
		avg := float64(i+1+j) / 2
		for k := i; k < j; k++ {
			pooled[k].rank = avg
		}
		t := float64(j - i)
		tieSum += t*t*t - t
		i = j
	}

	var ra float64
	for _, o := range pooled {
		if o.inA {
			ra += o.rank
		}
	}
	fn1, fn2, fn := float64(n1), float64(n2), float64(n)
	u = ra - fn1*(fn1+1)/2

	variance := fn1 * fn2 / 12 * ((fn + 1) - tieSum/(fn*(fn-1)))
	if !(variance > 0) {
		return u, 1
	}
	sigma := math.Sqrt(variance)
	z := (math.Abs(u-fn1*fn2/2) - 0.5) / sigma
	if z < 0 {
		z = 0
	}
	p = math.Erfc(z / math.Sqrt2)
	if p > 1 {
		p = 1
	}
	return u, p
}

// defaultResamples is the bootstrap resample count used when RatioCI is
// given resamples <= 0.
const defaultResamples = 2000

// RatioCI returns the ratio of medians median(b)/median(a) and its 95%
// confidence interval by percentile bootstrap with the given number of
// resamples (2000 when resamples <= 0). It is deterministic: the random
// source is rand.NewPCG(seed, seed). If median(a) == 0 (including an empty
// a) it returns ratio 0 and CI (0,0); an empty b also yields (0,0,0).
// Bootstrap resamples whose median(a*) is 0 are skipped.
func RatioCI(a, b []float64, resamples int, seed uint64) (ratio, lo, hi float64) {
	ma := median(a)
	if len(a) == 0 || len(b) == 0 || ma == 0 {
		return 0, 0, 0
	}
	ratio = median(b) / ma
	if resamples <= 0 {
		resamples = defaultResamples
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	ra := make([]float64, len(a))
	rb := make([]float64, len(b))
	ratios := make([]float64, 0, resamples)
	for range resamples {
		for i := range ra {
			ra[i] = a[rng.IntN(len(a))]
		}
		for i := range rb {
			rb[i] = b[rng.IntN(len(b))]
		}
		slices.Sort(ra)
		slices.Sort(rb)
		mA := Percentile(ra, 50)
		if mA == 0 {
			continue
		}
		ratios = append(ratios, Percentile(rb, 50)/mA)
	}
	if len(ratios) == 0 {
		return ratio, ratio, ratio
	}
	slices.Sort(ratios)
	return ratio, Percentile(ratios, 2.5), Percentile(ratios, 97.5)
}

// Histogram buckets samples into n equal-width bins between min and max
// (inclusive); returns bin lower edges and counts. n<1 → 1. All equal → one
// bin holding all. Empty samples → nil, nil.
func Histogram(samples []float64, n int) (edges []float64, counts []int) {
	if len(samples) == 0 {
		return nil, nil
	}
	if n < 1 {
		n = 1
	}
	lo, hi := slices.Min(samples), slices.Max(samples)
	if lo == hi {
		return []float64{lo}, []int{len(samples)}
	}
	width := (hi - lo) / float64(n)
	edges = make([]float64, n)
	for i := range edges {
		edges[i] = lo + float64(i)*width
	}
	counts = make([]int, n)
	for _, x := range samples {
		i := int((x - lo) / width)
		if i >= n {
			i = n - 1 // max belongs to the last bin
		}
		if i < 0 {
			i = 0
		}
		counts[i]++
	}
	return edges, counts
}
