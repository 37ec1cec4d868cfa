package faults

// exitAtStartup: the server dies before it answers its handshake, as one
// with a missing dependency or a bad config does.
type exitAtStartup struct{}

func init() {
	Register(Kind{Name: "exit-at-startup", Rank: 80, Stage: AtStart, Where: Anywhere, Process: true,
		Flags: []Flag{{Name: "exit-at-startup", Type: Switch, Usage: "kill the server before it answers its handshake"}},
		New:   func(func(string) string) (Fault, error) { return exitAtStartup{}, nil }})
}

func (exitAtStartup) Describe(string) string { return "exit at startup" }

func (exitAtStartup) Apply(inj *Injection, _ Dir, frame []byte) error { return inj.Pass(frame) }

func (exitAtStartup) Open(inj *Injection) error {
	inj.Note("server killed at startup, before its handshake")
	inj.Kill()
	return nil
}
