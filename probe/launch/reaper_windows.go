//go:build windows

package launch

// On Windows the job object each server runs in (process_windows.go)
// already holds every process it spawns, however far they wander, and
// ending the job ends them: there is no subreaper to enable and nothing
// outside the job to find or reap.

// EnableSubreaper has nothing to do on Windows: the job object owns the tree.
func EnableSubreaper() error { return nil }

func reapOrphans(string) []string { return nil }

func reapMarked(string) []string { return nil }

func reapZombies() {}

func descendants(int) []int { return nil }

func killPids([]int) {}

func orphanPids() []int { return nil }
