package faults

// garble corrupts a reply's bytes so that it no longer parses: a quote, a
// brace, a colon or a comma past its middle become garbage. What the
// client does with an unparseable line is its own business (its policy,
// in the shim).
type garble struct{}

func init() {
	Register(Kind{Name: "garble", Rank: 40, Stage: OnCall, Where: Anywhere,
		Flags: []Flag{{Name: "garble-at", Type: Which, Usage: "corrupt the bytes of the reply to " + whichUsage}},
		New:   func(func(string) string) (Fault, error) { return garble{}, nil }})
}

func (garble) Describe(at string) string { return "garble at " + at }

func (garble) Apply(inj *Injection, dir Dir, frame []byte) error {
	if dir == ToServer {
		return inj.Pass(frame)
	}
	inj.Note("reply %d garbled", inj.Hit().N)
	return inj.Pass(garbled(frame))
}

func garbled(raw []byte) []byte {
	out := append([]byte(nil), raw...)
	for i, n := len(out)/2, 0; i < len(out) && n < 3; i++ {
		if out[i] == '"' || out[i] == '{' || out[i] == ':' || out[i] == ',' {
			out[i] = '\x7f'
			n++
		}
	}
	return out
}
