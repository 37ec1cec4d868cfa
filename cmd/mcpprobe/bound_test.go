package main

import (
	"time"

	"github.com/mcpprobe/mcpprobe/internal/loadfactor"
)

// bound is a wall-clock bound set on an idle machine, scaled by the load
// this machine was measured to be under (see calibrate in e2e_test.go,
// with the e2e tag; without it, loadfactor's own measures). Untagged: the
// golden and corpus replays bound their waits with it too.
func bound(d time.Duration) time.Duration { return loadfactor.Scale(d) }
