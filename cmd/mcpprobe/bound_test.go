package main

import (
	"time"

	"github.com/mcpprobe/mcpprobe/internal/loadfactor"
)

// bound is a wall-clock bound set on an idle machine, scaled by the load
// this machine was measured to be under (see calibrate).
func bound(d time.Duration) time.Duration { return loadfactor.Scale(d) }

// secs is bound as a flag value for the binary ("3s" → "7.5s").
func secs(d time.Duration) string { return loadfactor.Seconds(d) }
