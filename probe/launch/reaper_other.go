//go:build unix && !linux

package launch

import "errors"

// EnableSubreaper is Linux only (prctl PR_SET_CHILD_SUBREAPER). Elsewhere
// a descendant that left the server's process group is not found: the
// group is still killed whole, and reported when it outlives the server.
func EnableSubreaper() error {
	return errors.New("finding processes that left the server's group needs Linux (PR_SET_CHILD_SUBREAPER)")
}

func reapOrphans(string) []string { return nil }

func reapMarked(string) []string { return nil }

func reapZombies() {}

func descendants(int) []int { return nil }

func killPids([]int) {}

func orphanPids() []int { return nil }
