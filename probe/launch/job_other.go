//go:build !windows

package launch

// startedGroup has nothing to do on Unix: the child was made a process
// group leader as it started (groupAttr).
func startedGroup(int) error { return nil }
