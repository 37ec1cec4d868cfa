// Package snapshot pins a server's definitions in a lock file that diff
// --ref reads back. The file's format (writer and reader) lives in
// probe/diff, beside the comparison that gives it a meaning.
package snapshot

import (
	"context"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/diff"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/wire"
)

// Options are the snapshot command's: which server, and how to probe it.
type Options struct {
	wire.Options
}

// Result is one snapshot: the lock file, and the capture it was made of.
type Result struct {
	Capture *probe.Capture
	// Lock is the lock file (diff.Snapshot): stable, sorted, pretty JSON.
	Lock []byte
}

// Run probes the server (wire.Run) and writes its lock file.
func Run(ctx context.Context, o Options) (*Result, error) {
	w, err := wire.Run(ctx, o.Options)
	if err != nil {
		return nil, err
	}
	return &Result{Capture: w.Capture, Lock: diff.Snapshot(w.Capture)}, nil
}

// Findings are what the probe saw while taking the snapshot; snapshot
// gates on none of them.
func (r *Result) Findings() []findings.Finding { return r.Capture.Findings }

// Counts is empty: snapshot has no gates.
func (r *Result) Counts() map[string]int { return nil }
