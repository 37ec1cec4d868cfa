package faults

import "fmt"

// pollute: the server writes stray text on stdout before its reply: a
// log line it prints by mistake, or the same without its newline, which
// glues it to the reply.
type pollute struct{ partial bool }

// Pollution written on stdout.
const (
	pollutionLine    = "[debug] cache warmed in 12ms"
	pollutionPartial = "Loading configuration..."
)

func init() {
	Register(Kind{Name: "pollute", Rank: 50, Stage: OnCall, Where: Anywhere, Process: true,
		Flags: []Flag{
			{Name: "pollute", Type: Word, Usage: "`KIND` of stray stdout text: line (a log line) or partial (no newline, glued to the reply)"},
			{Name: "pollute-at", Type: Which, Default: "1", Usage: "the reply --pollute precedes: " + whichUsage},
		},
		New: func(get func(string) string) (Fault, error) {
			switch k := get("pollute"); k {
			case "line", "partial":
				return pollute{partial: k == "partial"}, nil
			default:
				return nil, fmt.Errorf("--pollute %q: want line or partial", k)
			}
		}})
}

func (p pollute) kind() string {
	if p.partial {
		return "partial"
	}
	return "line"
}

func (p pollute) Describe(at string) string { return "pollute (" + p.kind() + ") at " + at }

func (p pollute) Apply(inj *Injection, dir Dir, frame []byte) error {
	if dir == ToServer {
		return inj.Pass(frame)
	}
	n := inj.Hit().N
	text := pollutionLine + "\n"
	if p.partial {
		text = pollutionPartial
		inj.Note("stray text without a newline glued to reply %d", n)
	} else {
		inj.Note("a stray stdout line before reply %d", n)
	}
	if err := inj.Write([]byte(text)); err != nil {
		return err
	}
	return inj.Pass(frame)
}
