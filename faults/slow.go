package faults

import (
	"fmt"
	"time"
)

// slow: the reply is held for a delay, then delivered: a client with a
// shorter timeout gives up and must drop the late reply. The faults after
// it act on the reply when it comes out.
type slow struct{ delay time.Duration }

func init() {
	Register(Kind{Name: "slow", Rank: 20, Stage: OnCall, Where: Anywhere,
		Flags: []Flag{
			{Name: "slow-at", Type: Which, Usage: "hold the reply to " + whichUsage + " for --delay"},
			{Name: "delay", Type: Duration, Default: "3s", Usage: "how long --slow-at holds a reply"},
		},
		New: func(get func(string) string) (Fault, error) {
			d, err := time.ParseDuration(get("delay"))
			if err != nil || d < 0 {
				return nil, fmt.Errorf("--delay %q: want a duration such as 3s", get("delay"))
			}
			return slow{delay: d}, nil
		}})
}

func (s slow) Describe(at string) string { return fmt.Sprintf("slow at %s (%v)", at, s.delay) }

func (s slow) Apply(inj *Injection, dir Dir, frame []byte) error {
	if dir == ToServer {
		return inj.Pass(frame)
	}
	inj.Note("reply %d held %v", inj.Hit().N, s.delay)
	inj.After(s.delay, func(later *Injection) { _ = later.Pass(frame) })
	return nil
}
