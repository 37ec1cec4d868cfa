package load

import (
	"fmt"
	"time"
)

// Bound is what a step must keep to: its p99 latency at most MaxP99 (0:
// no bound on it) and its error ratio at most MaxErrors.
type Bound struct {
	MaxP99    time.Duration
	MaxErrors float64
}

// Broken says why a step's figures break the bound, "" when they keep it.
func (b Bound) Broken(all *Series) string {
	switch r := all.ErrorRatio(); {
	case r > b.MaxErrors:
		return fmt.Sprintf("error ratio %.4f over --max-errors %g (%d errors, %d timeouts, %d unsent of %d)",
			r, b.MaxErrors, all.Errors, all.Timeouts, all.Unsent, all.Requests)
	case all.N == 0:
		return "no request answered"
	case b.MaxP99 > 0 && all.P99Ns > float64(b.MaxP99):
		return fmt.Sprintf("p99 %s over --max-p99 %s", time.Duration(all.P99Ns).Round(time.Microsecond), b.MaxP99)
	}
	return ""
}

// Knee is where a ramp broke its bound: the first step that broke it and
// the last step before it that kept it, as indexes into the steps (-1:
// none). A ramp whose every step kept the bound has no knee, and its last
// good step is its last.
type Knee struct {
	Knee     int    `json:"-"`
	LastGood int    `json:"-"`
	Why      string `json:"why"`
	// The rates of those steps, null for none.
	KneeRate     *float64 `json:"knee_rate"`
	LastGoodRate *float64 `json:"last_good_rate"`
}

// FindKnee finds the knee of steps, in the order they ran: the first that
// breaks b. Steps after a broken one are not looked at (the ramp stops
// there).
func FindKnee(steps []Step, b Bound) Knee {
	k := Knee{Knee: -1, LastGood: -1}
	for i := range steps {
		if why := b.Broken(steps[i].All); why != "" {
			k.Knee, k.Why = i, why
			r := steps[i].Rate
			k.KneeRate = &r
			break
		}
		k.LastGood = i
	}
	if k.LastGood >= 0 {
		r := steps[k.LastGood].Rate
		k.LastGoodRate = &r
	}
	return k
}
