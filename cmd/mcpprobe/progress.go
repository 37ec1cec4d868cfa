package main

import (
	"time"

	"github.com/mcpprobe/mcpprobe/reports/terminal"
	"github.com/urfave/cli/v3"
)

// statusFor is the run's one progress line on stderr, drawn only when
// stderr is a terminal and --quiet is not set: every part of a command
// (the probe's waits, bench's counts, faults' steps, malformed's cases)
// reports to it, so they never draw over one another. run clears it
// before any message.
func (rs *runState) statusFor(cmd *cli.Command) *terminal.Progress {
	rs.progressMu.Lock()
	defer rs.progressMu.Unlock()
	if rs.progress == nil {
		w := rs.errw
		rs.progress = terminal.NewProgress(w, !cmd.Bool("quiet") && isTerminal(w)).Label(cmd.Name, termWidth(w, rs.getenv))
	}
	return rs.progress
}

// clearStatus clears the progress line, if the run drew one.
func (rs *runState) clearStatus() {
	rs.progressMu.Lock()
	p := rs.progress
	rs.progressMu.Unlock()
	if p != nil {
		p.Done()
	}
}

// probePhase is the probe's Phase callback for the progress line, or nil
// when there is no line to draw.
func (rs *runState) probePhase(cmd *cli.Command) func(string, time.Time, time.Duration) {
	if st := rs.statusFor(cmd); st.On() {
		return st.Phase
	}
	return nil
}

// caseProgress is malformed's Progress callback: the case under way,
// bounded by --timeout, and the cases done of those planned.
func (rs *runState) caseProgress(cmd *cli.Command, timeout time.Duration) func(string, int, int) {
	st := rs.statusFor(cmd)
	if !st.On() {
		return nil
	}
	return func(name string, done, total int) {
		st.Report(done, total)
		st.Phase("case: "+name, time.Now(), timeout)
	}
}
