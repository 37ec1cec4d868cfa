package faults

// drop: the reply never reaches the client, which can only time out.
type drop struct{}

func init() {
	Register(Kind{Name: "drop", Rank: 30, Stage: OnCall, Where: Anywhere,
		Flags: []Flag{{Name: "drop-at", Type: Which, Usage: "swallow the reply to " + whichUsage}},
		New:   func(func(string) string) (Fault, error) { return drop{}, nil }})
}

func (drop) Describe(at string) string { return "drop at " + at }

func (drop) Apply(inj *Injection, dir Dir, frame []byte) error {
	if dir == ToServer {
		return inj.Pass(frame)
	}
	return dropReply(inj)
}

func dropReply(inj *Injection) error {
	inj.Note("reply dropped (call %d)", inj.Hit().N)
	return nil
}
