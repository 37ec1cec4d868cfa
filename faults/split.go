package faults

import "time"

// split delivers what the server writes in small chunks at seeded random
// boundaries, each its own write: a host that parses a read as a line
// breaks. It keeps every byte.
type split struct{}

func init() {
	Register(Kind{Name: "split", Rank: 60, Stage: OnStream, Where: InProxy,
		WhyOnly: "every in-process client reassembles lines, so only a real host behind the proxy can show a bug here",
		Flags:   []Flag{{Name: "split", Type: Switch, Usage: "deliver frames in small chunks at random boundaries (proxy)"}},
		New:     func(func(string) string) (Fault, error) { return split{}, nil }})
}

func (split) Describe(string) string { return "split frames" }

// splitPause lets each chunk reach the host as its own read.
const splitPause = 50 * time.Microsecond

func (split) Apply(inj *Injection, dir Dir, b []byte) error {
	if dir == ToServer {
		return inj.Pass(b)
	}
	for len(b) > 0 {
		n := min(1+inj.IntN(16), len(b))
		if err := inj.Pass(b[:n]); err != nil {
			return err
		}
		b = b[n:]
		if len(b) > 0 {
			time.Sleep(splitPause)
		}
	}
	return nil
}
