// Package bench holds pure-Go statistics for latency benchmarking:
// summaries of duration series, percentiles, the paired sign-flip
// permutation test over rounds, a bootstrap confidence interval for a
// ratio of medians that resamples rounds, the Mann-Whitney U test, and
// histograms.
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
	// FirstSlow: a cold start a host would feel: First > 3 × P50 of the
	// rest (the rest = samples[1:]; needs n >= 5) and First >= ColdFloor.
	FirstSlow bool
	// FirstTimedOut: the first call was not answered; First is then how
	// long it was waited for, not a measure of the server (set by Measure).
	FirstTimedOut bool
	// FirstError is the first failure's message (a JSON-RPC error, an
	// isError result's text, why a start failed), cut to MaxErrorLen;
	// set by the caller, as Errors is.
	FirstError string
	// Stopped, when not 0, is how many calls the series made before it
	// was stopped, every one timed out (StopAfterTimeouts); set by Measure,
	// which then counts in Timeouts every call that timed out, the first
	// and the warm-up's included.
	Stopped  int
	Outliers []int   // input indexes whose |0.6745 (x - median) / MAD| > 3.5; none when MAD == 0
	Samples  []int64 // the input, in input order, copied
}

// outlierThreshold is the modified z-score above which a sample is an
// outlier (Iglewicz and Hoaglin).
const outlierThreshold = 3.5

// ColdFloor (ns) is how long a first call must take, besides 3× the
// p50, to be a cold start a host would feel: a first ping of 0.3 ms at
// 3× a p50 of 0.1 ms is no such thing.
const ColdFloor = 50e6

// MaxErrorLen bounds FirstError, which the server wrote.
const MaxErrorLen = 200

// coldFirst is the rule FirstSlow follows.
func coldFirst(first, p50Rest float64) bool {
	return first > 3*p50Rest && first >= ColdFloor
}

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
		s.FirstSlow = coldFirst(s.First, Percentile(rest, 50))
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

// RoundsRatioCI is the ratio of medians median(b)/median(a) over every
// sample of every round, and its 95% confidence interval by a percentile
// bootstrap that resamples whole rounds, paired (round r of A with round r
// of B): calls made on one process share its fate, so the round, not the
// call, is the independent unit. Deterministic for a seed. A median of A
// of 0 (or no sample on a side) gives (0, 0, 0); resamples <= 0 means
// defaultResamples.
func RoundsRatioCI(a, b [][]float64, resamples int, seed uint64) (ratio, lo, hi float64) {
	pa, pb := slices.Concat(a...), slices.Concat(b...)
	ma := median(pa)
	if len(pa) == 0 || len(pb) == 0 || ma == 0 {
		return 0, 0, 0
	}
	ratio = median(pb) / ma
	if resamples <= 0 {
		resamples = defaultResamples
	}
	n := max(len(a), len(b))
	ta, tb := tag(a), tag(b)
	rng := rand.New(rand.NewPCG(seed, seed))
	ratios := make([]float64, 0, resamples)
	w := make([]int, n)
	for range resamples {
		clear(w)
		for range n {
			w[rng.IntN(n)]++
		}
		mA, okA := weightedMedian(ta, w)
		mB, okB := weightedMedian(tb, w)
		if okA && okB && mA > 0 {
			ratios = append(ratios, mB/mA)
		}
	}
	if len(ratios) == 0 {
		return ratio, ratio, ratio
	}
	slices.Sort(ratios)
	return ratio, Percentile(ratios, 2.5), Percentile(ratios, 97.5)
}

// tagged is a sample and the round it came from.
type tagged struct {
	v float64
	r int
}

// tag pools rounds' samples, sorted, each with its round.
func tag(rounds [][]float64) []tagged {
	var out []tagged
	for r, xs := range rounds {
		for _, x := range xs {
			out = append(out, tagged{x, r})
		}
	}
	slices.SortFunc(out, func(x, y tagged) int {
		switch {
		case x.v < y.v:
			return -1
		case x.v > y.v:
			return 1
		}
		return 0
	})
	return out
}

// weightedMedian is Percentile(·, 50) of the multiset in which round r's
// samples appear w[r] times, read off the sorted pool without building
// it: a bootstrap resample of rounds in linear time.
func weightedMedian(pool []tagged, w []int) (float64, bool) {
	total := 0
	for _, t := range pool {
		total += w[t.r]
	}
	if total == 0 {
		return 0, false
	}
	h := float64(total-1) / 2
	k := int(math.Floor(h))
	frac := h - float64(k)
	var at, next float64
	found := false
	cum := 0
	for _, t := range pool {
		c := w[t.r]
		if c == 0 {
			continue
		}
		if !found && cum+c > k {
			at, found = t.v, true
		}
		if cum+c > k+1 {
			next = t.v
			return at + frac*(next-at), true
		}
		cum += c
	}
	return at, true // k is the last rank
}

// maxExactFlips is the most rounds SignFlipP enumerates every sign
// pattern of (2^16 patterns); above, it draws randomly.
const maxExactFlips = 16

// signFlipDraws is how many random sign patterns SignFlipP draws above
// maxExactFlips.
const signFlipDraws = 1 << 16

// SignFlipP is the two-sided p-value of the paired sign-flip permutation
// test that d (one difference per round, e.g. a log ratio of medians)
// is centred on 0: under that hypothesis each d's sign is as likely
// flipped, so the observed |Σd| is compared with |Σ±d| over every sign
// pattern (exact up to maxExactFlips rounds; a seeded random draw of
// patterns above, with p = (hits+1)/(draws+1)). It assumes only that A and
// B are exchangeable within a round, which alternating their order
// makes true of the order itself. With n rounds its smallest p is 2/2^n:
// 10 rounds reach 0.002. No rounds, or all d 0: p = 1.
func SignFlipP(d []float64, seed uint64) float64 {
	n := len(d)
	if n == 0 {
		return 1
	}
	obs := 0.0
	for _, x := range d {
		obs += x
	}
	obs = math.Abs(obs)
	if obs == 0 {
		return 1
	}
	// A pattern as extreme as the observed one, allowing for rounding in
	// a sum taken in another order.
	tol := obs * 1e-9
	extreme := func(mask uint64) bool {
		s := 0.0
		for i, x := range d {
			if mask&(1<<uint(i%64)) != 0 {
				s -= x
			} else {
				s += x
			}
		}
		return math.Abs(s) >= obs-tol
	}
	if n <= maxExactFlips {
		hits := 0
		for mask := uint64(0); mask < 1<<uint(n); mask++ {
			if extreme(mask) {
				hits++
			}
		}
		return float64(hits) / float64(uint64(1)<<uint(n))
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	hits := 0
	for range signFlipDraws {
		s := 0.0
		for i := range d {
			if rng.IntN(2) == 0 {
				s += d[i]
			} else {
				s -= d[i]
			}
		}
		if math.Abs(s) >= obs-tol {
			hits++
		}
	}
	return float64(hits+1) / float64(signFlipDraws+1)
}

// SignFlipFloor is the smallest p SignFlipP can give with n rounds: 2/2^n
// (1 for none).
func SignFlipFloor(n int) float64 {
	if n <= 0 {
		return 1
	}
	return 2 / math.Pow(2, float64(n))
}
