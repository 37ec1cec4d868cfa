package faults

import (
	"fmt"
	"strconv"
)

// stderrFlood: the server writes many lines on stderr at startup, as a
// chatty one does; a host that does not drain stderr stalls it.
type stderrFlood struct{ lines int }

// maxFloodLines bounds the flood (and its memory in a test's buffer).
const maxFloodLines = 10_000_000

func init() {
	Register(Kind{Name: "stderr-flood", Rank: 70, Stage: AtStart, Where: InProxy,
		WhyOnly: "an in-process client never reads the server's stderr, so only a real host behind the proxy can show a bug here",
		Flags:   []Flag{{Name: "stderr-flood", Type: Count, Usage: "write `N` lines on stderr at startup (proxy)"}},
		New: func(get func(string) string) (Fault, error) {
			n, err := strconv.Atoi(get("stderr-flood"))
			if err != nil || n < 0 || n > maxFloodLines {
				return nil, fmt.Errorf("--stderr-flood %q: want a number of lines, 0 to %d", get("stderr-flood"), maxFloodLines)
			}
			return stderrFlood{lines: n}, nil
		}})
}

func (f stderrFlood) Describe(string) string { return fmt.Sprintf("stderr flood (%d lines)", f.lines) }

func (stderrFlood) Apply(inj *Injection, _ Dir, frame []byte) error { return inj.Pass(frame) }

func (f stderrFlood) Open(inj *Injection) error {
	for i := 0; i < f.lines; i++ {
		if err := inj.Stderr(fmt.Appendf(nil, "[mcpprobe proxy] stderr flood line %d of %d\n", i+1, f.lines)); err != nil {
			return err
		}
	}
	return nil
}
