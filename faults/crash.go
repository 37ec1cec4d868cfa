package faults

// crash: the server's whole process group is killed right after the
// request reaches it, so it dies while handling the call. The client sees
// its stream end: this call "closed", later ones "not_connected".
func (s *Shim) crash(n int, tool string) bool {
	return s.plan.Crash != nil && s.plan.Crash.Match(n, tool, s.rng)
}
