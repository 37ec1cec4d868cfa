package faults

// crash: the server's whole process group is killed right after the
// request reaches it, so it dies while handling the call. The client sees
// its stream end: this call "closed", later ones "not_connected".
type crash struct{}

func init() {
	Register(Kind{Name: "crash", Rank: 10, Stage: OnCall, Where: Anywhere, Process: true,
		Flags: []Flag{{Name: "crash-at", Type: Which, Usage: "kill the server's process group while it handles " + whichUsage}},
		New:   func(func(string) string) (Fault, error) { return crash{}, nil }})
}

func (crash) Describe(at string) string { return "crash at " + at }

func (crash) Apply(inj *Injection, dir Dir, frame []byte) error {
	if dir == ToClient {
		// A reply that raced out before the kill landed: the server died
		// handling this call, and a client must see that.
		return dropReply(inj)
	}
	err := inj.Pass(frame)
	h := inj.Hit()
	inj.Note("server process group killed while handling call %d (%s)", h.N, h.Tool)
	inj.Kill()
	return err
}
