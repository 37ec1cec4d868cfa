package main

import (
	"time"

	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/urfave/cli/v3"
)

// statusFor is the run's one progress line on stderr, drawn only when
// stderr is a terminal and --quiet is not set: every part of a command
// (the probe's waits, bench's counts, faults' steps, malformed's cases)
// reports to it, so they never draw over one another. run clears it
// before any message.
func statusFor(cmd *cli.Command) *reports.Progress {
	root := cmd.Root()
	if p, ok := root.Metadata["progress"].(*reports.Progress); ok {
		return p
	}
	w := root.ErrWriter
	p := reports.NewProgress(w, !cmd.Bool("quiet") && isTerminal(w)).Label(cmd.Name, termWidth(w))
	if root.Metadata == nil {
		root.Metadata = map[string]any{}
	}
	root.Metadata["progress"] = p
	return p
}

// clearStatus clears the progress line, if the run drew one.
func clearStatus(root *cli.Command) {
	if p, ok := root.Metadata["progress"].(*reports.Progress); ok {
		p.Done()
	}
}

// probePhase is the probe's Phase callback for the progress line, or nil
// when there is no line to draw.
func probePhase(cmd *cli.Command) func(string, time.Time, time.Duration) {
	if st := statusFor(cmd); st.On() {
		return st.Phase
	}
	return nil
}

// caseProgress is malformed's Progress callback: the case under way,
// bounded by --timeout, and the cases done of those planned.
func caseProgress(cmd *cli.Command, timeout time.Duration) func(string, int, int) {
	st := statusFor(cmd)
	if !st.On() {
		return nil
	}
	return func(name string, done, total int) {
		st.Report(done, total)
		st.Phase("case: "+name, time.Now(), timeout)
	}
}
