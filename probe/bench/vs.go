package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/args"
	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/tidwall/gjson"
)

// DefaultRounds is how many rounds --vs runs when not told: ten paired
// rounds let the test reach p = 0.002, well under Alpha.
const DefaultRounds = 10

// Alpha is the p-value under which a difference is called significant.
// At 0.05, one A/A comparison in twenty would claim a difference between a
// server and itself; a verdict a user acts on should be rarer than that.
const Alpha = 0.01

// Comparison is one series of B against A, over rounds.
type Comparison struct {
	Name string
	// Ratio is p50(B) / p50(A), each over every call of every round: the
	// two p50s the table shows for the series.
	Ratio     float64
	Low, High float64 // its 95% interval, bootstrapping whole rounds
	// P is the two-sided p-value of the paired sign-flip permutation test
	// on the rounds' log ratios of medians (exact up to 16 rounds).
	P           float64
	Significant bool // P < Alpha
	Rounds      int  // the paired rounds the test used (both sides measured)
}

// roundSide is what one process of one side gave in one round.
type roundSide struct {
	startup [][]int64 // per startup phase: its one sample, or none
	errs    int       // the handshake failed (1) or not
	firstEr string
	series  []Stats // ping (when measured), then each call, in order
}

// vsPlan is what both sides will be measured on.
type vsPlan struct {
	calls []args.Call
	ping  bool
	// list times tools/list as the baseline when neither ping nor a
	// call would be timed.
	list bool
}

// vs measures A against B in rounds: each round starts a fresh process of
// each, in an order that cancels drift, and measures every series on it;
// the comparison is made over the rounds. Both sides' figures are the
// rounds' samples, pooled: the same samples the ratios use.
func vs(ctx context.Context, o Options, p *counter) (*Side, *Side, []Comparison, error) {
	specB := *o.Vs
	rounds := o.Rounds
	if rounds <= 0 {
		rounds = DefaultRounds
	}
	mode := fmt.Sprintf("closed loop, one call in flight; %d rounds, each a fresh process of A and of B, %s, after a warm-up round of each not counted", rounds, orderName(o.Seed))
	sa := &Side{Target: o.Target.Display(), Mode: mode}
	sb := &Side{Target: specB.Target.Display(), Mode: mode}
	plan, err := planVs(ctx, o, specB, sa, sb)
	if err != nil {
		return nil, nil, nil, err
	}
	per := len(plan.calls)
	if plan.ping || plan.list {
		per++
	}
	if o.N == 0 {
		per = 0
	}
	var ra, rb []roundSide
	// The whole run's steps, counted before its first: the total shown
	// never grows.
	p.add((rounds + 1) * 2 * (1 + per*o.N))
	if err := warmRound(ctx, o, specB, plan, p); err != nil {
		return nil, nil, nil, err
	}
	for r, aFirst := range Order(rounds, o.Seed) {
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, err
		}
		sides := []bool{true, false} // A?
		if !aFirst {
			sides = []bool{false, true}
		}
		for _, isA := range sides {
			spec := o.Spec
			if !isA {
				spec = specB
			}
			rs, err := measureRound(ctx, spec, o, plan, p)
			if err != nil {
				err = inRound(err, fmt.Sprintf("round %d", r+1))
				if !isA {
					err = vsError(err)
				}
				return nil, nil, nil, err
			}
			if isA {
				ra = append(ra, rs)
			} else {
				rb = append(rb, rs)
			}
		}
	}
	if err := allFailed(ra, rounds); err != nil {
		return nil, nil, nil, err
	}
	if err := allFailed(rb, rounds); err != nil {
		return nil, nil, nil, vsError(err)
	}
	var cmp []Comparison
	if o.Startup > 0 {
		for k, n := range startupNames {
			a, b := startupRounds(ra, k), startupRounds(rb, k)
			if !anySample(a) || !anySample(b) {
				continue
			}
			name := "startup: " + n
			if k == 3 {
				name = "exit: " + n
			}
			sa.Startup = append(sa.Startup, pooled(name, a, ra, k))
			sb.Startup = append(sb.Startup, pooled(name, b, rb, k))
			cmp = append(cmp, CompareRounds(name, a, b))
		}
	}
	if o.N == 0 {
		return sa, sb, cmp, nil
	}
	// The series in the order measureRound made them: ping, then calls;
	// compared in the order the tables show them: calls, then ping.
	var pingCmp []Comparison
	for i, n := range seriesNames(plan) {
		var call *args.Call
		if k := i - len(seriesNames(plan)) + len(plan.calls); k >= 0 {
			call = &plan.calls[k]
		}
		x, y := pooledCalls(n, call, ra, i), pooledCalls(n, call, rb, i)
		c := CompareRounds(n, callRounds(ra, i), callRounds(rb, i))
		if call == nil {
			if plan.list {
				sa.List, sb.List = &x, &y
			} else {
				sa.Ping, sb.Ping = &x, &y
			}
			pingCmp = append(pingCmp, c)
		} else {
			sa.Calls, sb.Calls = append(sa.Calls, x), append(sb.Calls, y)
			cmp = append(cmp, c)
		}
	}
	return sa, sb, append(cmp, pingCmp...), nil
}

// warmRound runs one round of each side, B then A, and discards it. The
// first series this process measures pays for its own first use of the
// calling code (pages faulted in, the heap grown, the scheduler's threads
// started) and the first server of a side for the disk and page cache;
// every measured round, the first included, then finds both sides warm,
// so that no side carries a first-round cost into the comparison (A did:
// round 1 always starts with A).
func warmRound(ctx context.Context, o Options, specB dial.Spec, plan vsPlan, p *counter) error {
	if _, err := measureRound(ctx, specB, o, plan, p); err != nil {
		return vsError(inRound(err, "warm-up round"))
	}
	if _, err := measureRound(ctx, o.Spec, o, plan, p); err != nil {
		return inRound(err, "warm-up round")
	}
	return nil
}

// inRound says which round a fatal error happened in.
func inRound(err error, round string) error {
	var fe *probe.FatalError
	if !errors.As(err, &fe) {
		return fmt.Errorf("%s: %w", round, err)
	}
	cp := *fe
	cp.What = fmt.Sprintf("%s: %s", round, fe.What)
	return &cp
}

// planVs picks the calls on one start of each side, not measured (it
// also brings both binaries into the file cache before round 1): the
// calls A would make, those B lacks skipped; ping when both eras have it.
func planVs(ctx context.Context, o Options, specB dial.Spec, sa, sb *Side) (vsPlan, error) {
	var plan vsPlan
	clA, stopA, err := probeOnce(ctx, o.Spec)
	if err != nil {
		return plan, err
	}
	defer stopA()
	clB, stopB, err := probeOnce(ctx, specB)
	if err != nil {
		return plan, vsError(err)
	}
	defer stopB()
	sa.Protocol, sb.Protocol = clA.Capture.ProtocolVersion, clB.Capture.ProtocolVersion
	calls, skipped, err := args.Plan(clA.Capture, o.Calls, o.AutoCalls)
	if err != nil {
		return plan, probe.Optionf("%v", err)
	}
	have := map[string]bool{}
	for _, raw := range clB.Capture.Tools.Items {
		have[gjson.GetBytes(raw, "name").String()] = true
	}
	for _, c := range calls {
		if have[c.Tool] {
			plan.calls = append(plan.calls, c)
		} else {
			skipped = append(skipped, c.Tool+" (--vs "+sb.Target+" has no such tool)")
		}
	}
	sa.Skipped = skipped
	plan.ping = !clA.Modern() && !clB.Modern()
	if plan.list = !plan.ping && len(plan.calls) == 0; plan.list {
		sa.ListWhy = listWhy(clA.Modern() || clB.Modern(), len(skipped) > 0)
		if !clA.Modern() || !clB.Modern() {
			sa.ListWhy = "one side speaks 2026-07-28, which has no ping" + strings.TrimPrefix(sa.ListWhy, "the 2026-07-28 era has no ping")
		}
		sb.ListWhy = sa.ListWhy
	}
	return plan, nil
}

// probeOnce starts a spec, connects and lists its tools.
func probeOnce(ctx context.Context, s dial.Spec) (*probe.Client, func(), error) {
	ss, err := dial.Open(ctx, s.Afresh())
	if err != nil {
		return nil, nil, err
	}
	ss.Client.ListTools(ctx)
	return ss.Client, func() { ss.Close() }, nil
}

// measureRound starts one fresh process of a side and measures on it: its
// startup phases (one sample each), then each series (the first call on
// its own, the warmup discarded, then -n calls), then its exit. A start
// that fails its handshake is counted, not fatal: the round has no calls
// for that side. A process that cannot be started at all is fatal.
func measureRound(ctx context.Context, s dial.Spec, o Options, plan vsPlan, p *counter) (roundSide, error) {
	rs := roundSide{startup: make([][]int64, len(startupNames))}
	srv, err := dial.Start(ctx, s.Afresh())
	if err != nil {
		return rs, err
	}
	err = srv.Connect(ctx)
	cl := srv.Client
	if err == nil {
		cl.ListTools(ctx)
		rs.startup[1] = []int64{int64(cl.Capture.Timings.Handshake)}
		if len(cl.Capture.Tools.Pages) > 0 {
			rs.startup[2] = []int64{int64(cl.Capture.Tools.Pages[0].T)}
		}
	} else {
		rs.errs, rs.firstEr = 1, errText(srv.Explain(err))
	}
	if fb := srv.FirstByte(); fb > 0 {
		rs.startup[0] = []int64{int64(fb)}
	}
	p.step()
	if err == nil && o.N > 0 {
		if plan.ping {
			rs.series = append(rs.series, Measure(ctx, o, PingFunc(ctx, cl, s.Probe.Timeout), p.step))
		}
		if plan.list {
			rs.series = append(rs.series, Measure(ctx, o, ListFunc(ctx, cl, s.Probe.Timeout), p.step))
		}
		for _, c := range plan.calls {
			rs.series = append(rs.series, Measure(ctx, o, CallFunc(ctx, cl, c, s.Probe.Timeout), p.step))
		}
	}
	if exit := srv.Close(); exit.Timed() {
		rs.startup[3] = []int64{int64(exit.After)}
	}
	return rs, nil
}

// allFailed is the error when no round's handshake went through.
func allFailed(rs []roundSide, rounds int) error {
	for _, r := range rs {
		if r.errs == 0 {
			return nil
		}
	}
	return notStarted(errors.New(rs[len(rs)-1].firstEr), rounds)
}

func seriesNames(plan vsPlan) []string {
	var out []string
	if plan.ping {
		out = append(out, "ping")
	}
	if plan.list {
		out = append(out, ListSeries)
	}
	for _, c := range plan.calls {
		out = append(out, "call "+c.Tool)
	}
	return out
}

func startupRounds(rs []roundSide, k int) [][]int64 {
	out := make([][]int64, len(rs))
	for r, x := range rs {
		out[r] = x.startup[k]
	}
	return out
}

func callRounds(rs []roundSide, i int) [][]int64 {
	out := make([][]int64, len(rs))
	for r, x := range rs {
		if i < len(x.series) {
			out[r] = x.series[i].Samples
		}
	}
	return out
}

func anySample(rounds [][]int64) bool {
	for _, r := range rounds {
		if len(r) > 0 {
			return true
		}
	}
	return false
}

// pooled is a startup phase over the rounds: one sample per round, the
// handshake's failures counted on the phases that need it.
func pooled(name string, rounds [][]int64, rs []roundSide, k int) Series {
	s := Series{Name: name, Stats: Summarize(slices.Concat(rounds...)), Rounds: withSamples(rounds), RoundP50s: roundP50s(rounds)}
	if k == 3 {
		s.FirstSlow = false // a slow first exit is no cold start of anything
	}
	if k == 1 || k == 2 {
		for _, r := range rs {
			s.Errors += r.errs
			if s.FirstError == "" {
				s.FirstError = r.firstEr
			}
		}
	}
	return s
}

// pooledCalls is a call series over the rounds: every measured call of
// every round, in round order; errors and timeouts summed; the first call
// the median of the rounds' first calls (each a fresh process's first).
func pooledCalls(name string, call *args.Call, rs []roundSide, i int) Series {
	rounds := callRounds(rs, i)
	s := Series{Name: name, Stats: Summarize(slices.Concat(rounds...)), Rounds: withSamples(rounds), RoundP50s: roundP50s(rounds)}
	if call != nil {
		s.Tool, s.Args = call.Tool, call.Args
	}
	var firsts []float64
	timedOut := 0
	for _, r := range rs {
		if i >= len(r.series) {
			continue
		}
		x := r.series[i]
		s.Errors += x.Errors
		s.Timeouts += x.Timeouts
		if s.FirstError == "" {
			s.FirstError = x.FirstError
		}
		firsts = append(firsts, x.First)
		if x.FirstTimedOut {
			timedOut++
		}
	}
	s.First = median(firsts)
	// The median of firsts that all timed out is a wait, not a measure.
	s.FirstTimedOut = timedOut > 0 && timedOut == len(firsts)
	s.FirstSlow = s.N >= 5 && coldFirst(s.First, s.P50)
	return s
}

// withSamples counts the rounds that gave a sample: a start whose
// handshake failed gives no call, an exit that was not timed no exit.
func withSamples(rounds [][]int64) int {
	n := 0
	for _, r := range rounds {
		if len(r) > 0 {
			n++
		}
	}
	return n
}

// roundP50s is each round's median, 0 for a round with no sample.
func roundP50s(rounds [][]int64) []float64 {
	out := make([]float64, len(rounds))
	for r, xs := range rounds {
		if len(xs) > 0 {
			out[r] = median(floats(xs))
		}
	}
	return out
}

func floats(s []int64) []float64 {
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = float64(v)
	}
	return out
}

// Order is which side goes first in each round: true for A. With seed 0
// it is ABBA (A first in rounds 1, 4, 5, 8, …, B in 2, 3, 6, 7, …), which
// cancels a drift that is linear in time; with a seed, a shuffle of half
// A-first and half B-first rounds, which cancels any drift on average.
func Order(rounds int, seed uint64) []bool {
	out := make([]bool, rounds)
	for r := range out {
		out[r] = r%4 == 0 || r%4 == 3
	}
	if seed != 0 {
		rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		rng.Shuffle(rounds, func(i, j int) { out[i], out[j] = out[j], out[i] })
	}
	return out
}

func orderName(seed uint64) string {
	if seed == 0 {
		return "in ABBA order"
	}
	return fmt.Sprintf("in an order shuffled with seed %d", seed)
}

// CompareRounds compares B with A over paired rounds: a[r] and b[r] are
// round r's samples. The ratio is that of the pooled medians; its
// interval bootstraps whole rounds (a round's calls share a process, so
// they are not independent; rounds are); the test is a paired sign-flip
// permutation test on the rounds' log ratios of medians.
func CompareRounds(name string, a, b [][]int64) Comparison {
	c := Comparison{Name: name}
	fa, fb := make([][]float64, len(a)), make([][]float64, len(b))
	for r := range a {
		fa[r] = floats(a[r])
	}
	for r := range b {
		fb[r] = floats(b[r])
	}
	c.Ratio, c.Low, c.High = RoundsRatioCI(fa, fb, defaultResamples, 1)
	var d []float64
	for r := 0; r < min(len(a), len(b)); r++ {
		if len(a[r]) == 0 || len(b[r]) == 0 {
			continue
		}
		ma, mb := median(fa[r]), median(fb[r])
		if ma <= 0 || mb <= 0 {
			continue
		}
		d = append(d, math.Log(mb/ma))
	}
	c.Rounds = len(d)
	c.P = SignFlipP(d, 1)
	c.Significant = c.P < Alpha
	return c
}

// vsError names the --vs target as the one that failed.
func vsError(err error) error {
	var fe *probe.FatalError
	if !errors.As(err, &fe) {
		return fmt.Errorf("--vs: %w", err)
	}
	cp := *fe
	cp.What = "--vs: " + fe.What
	return &cp
}
