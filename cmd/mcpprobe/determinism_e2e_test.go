//go:build e2e

package main

// The report is a pure function of what the server did: not of how its
// stderr interleaved with its stdout, nor of the order its notifications
// and requests arrived in, nor of how long anything took.

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/probe/report"
	"github.com/mcpprobe/mcpprobe/probe/wire"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/sergi/go-diff/diffmatchpatch"
	"github.com/tidwall/gjson"
)

// TestReportIgnoresScheduling records a server that writes stderr
// between its messages, sends notifications and requests of its own, an
// unmatched reply and invalid messages, then replays
// that recording reshuffled as another run could have delivered it:
// stderr lines elsewhere, the unasked messages in another order. Every
// replay's report is the recording's, byte for byte.
func TestReportIgnoresScheduling(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if r := mcpprobe(t, "wire", "--trace", path, "--", bin.raw, "-stderr-flood", "5", "-server-requests", "-unknown-id", "-invalid-flood", "2"); r.code != 0 {
		t.Fatalf("wire: exit %d: %s", r.code, r.stderr)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	recorded, err := transport.ReadTrace(f, 0)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	variants := map[string][]transport.Frame{
		"as recorded":                 recorded,
		"stderr first":                stderrFirst(recorded),
		"stderr last":                 stderrLast(recorded),
		"unasked messages reversed":   unaskedReversed(recorded),
		"stderr spread":               stderrSpread(recorded),
		"both: stderr last, reversed": unaskedReversed(stderrLast(recorded)),
	}
	// The reshuffles must move what the trace's Seq numbers, or this test
	// could not fail: the unmatched reply is another frame in each.
	seqs := map[int]bool{}
	for _, v := range variants {
		seqs[slices.IndexFunc(v, func(f transport.Frame) bool { return strings.Contains(string(f.Raw), `"id":999`) })] = true
	}
	if len(seqs) < 3 {
		t.Fatalf("the variants put the unmatched reply at %d places only", len(seqs))
	}
	hosts, err := hosts.Select(hosts.Known(), nil)
	if err != nil {
		t.Fatal(err)
	}
	render := func(name string, frames []transport.Frame) string {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		o := recordedOptions(frames)
		r, err := report.Run(ctx, report.Options{Options: o, Hosts: hosts, Date: "2026-12-02"})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var b bytes.Buffer
		reports.ReportMarkdown(&b, r, version)
		return b.String()
	}
	want := render("as recorded", recorded)
	for _, s := range []string{"stdout line 3)", "notifications/message ×1", "notifications/tools/list_changed ×1", "roots/list ×1", "| invalid-message |"} {
		if !strings.Contains(want, s) {
			t.Errorf("the report lacks %q:\n%s", s, want)
		}
	}
	for name, frames := range variants {
		if got := render(name, frames); got != want {
			t.Errorf("%s: the report differs from the recording's:\n%s", name, reports.UnifiedDiff("recorded", name, want, got, 2))
		}
	}
}

// recordedOptions plays frames back as the golden tests do.
func recordedOptions(frames []transport.Frame) wire.Options {
	o := wire.Options{}
	o.Spec.Target = launch.Target{Kind: "replay", Name: "rawserver", Frames: frames}
	o.Spec.Probe = probe.Options{Protocol: "auto", Timeout: 2 * time.Second, StartupTimeout: 2 * time.Second,
		DiscoverTimeout: time.Second, ClientVersion: version, MaxPages: 1000}
	return o
}

// stderrFirst moves every stderr line to the start of the trace: the
// server's stderr is read apart from its stdout, so its lines can come
// in anywhere.
func stderrFirst(fs []transport.Frame) []transport.Frame {
	errs, rest := splitStderr(fs)
	return append(errs, rest...)
}

// stderrLast moves them to the end.
func stderrLast(fs []transport.Frame) []transport.Frame {
	errs, rest := splitStderr(fs)
	return append(rest, errs...)
}

// stderrSpread puts one after each message of the server's, in order.
func stderrSpread(fs []transport.Frame) []transport.Frame {
	errs, rest := splitStderr(fs)
	var out []transport.Frame
	for _, f := range rest {
		out = append(out, f)
		if f.Dir == transport.DirRecv && len(errs) > 0 {
			out, errs = append(out, errs[0]), errs[1:]
		}
	}
	return append(out, errs...)
}

func splitStderr(fs []transport.Frame) (errs, rest []transport.Frame) {
	for _, f := range fs {
		if f.Dir == transport.DirStderr {
			errs = append(errs, f)
		} else {
			rest = append(rest, f)
		}
	}
	return errs, rest
}

// unaskedReversed reverses, within each stretch, the order of the
// notifications and requests the server sent, in the places they held.
func unaskedReversed(fs []transport.Frame) []transport.Frame {
	return perStretch(fs, func(s []transport.Frame) []transport.Frame {
		var at []int
		for i, f := range s {
			if f.Dir == transport.DirRecv && gjson.GetBytes(f.Raw, "method").Exists() {
				at = append(at, i)
			}
		}
		out := slices.Clone(s)
		for k, i := range at {
			out[i] = s[at[len(at)-1-k]]
		}
		return out
	})
}

// perStretch applies reorder to each run of frames between two of the
// client's sends: what a replay delivers at once, and what a server's
// scheduling may deliver in another order.
func perStretch(fs []transport.Frame, reorder func([]transport.Frame) []transport.Frame) []transport.Frame {
	var out, stretch []transport.Frame
	for _, f := range fs {
		if f.Dir == transport.DirSend {
			out = append(append(out, reorder(stretch)...), f)
			stretch = nil
			continue
		}
		stretch = append(stretch, f)
	}
	return append(out, reorder(stretch)...)
}

// TestReportOneFindingOneLine: a finding more in a report adds one line
// to its markdown and changes none of the others, wherever it sorts.
func TestReportOneFindingOneLine(t *testing.T) {
	t.Parallel()
	hosts, err := hosts.Select(hosts.Known(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := report.Run(ctx, report.Options{Options: recorded(t, "goodserver"), Hosts: hosts, Date: "2026-12-02"})
	if err != nil {
		t.Fatal(err)
	}
	var before bytes.Buffer
	reports.ReportMarkdown(&before, r, version)
	for _, f := range []findings.Finding{
		findings.New(findings.UnknownID, "a response with id 7 that matches no request in flight (stdout line 12)"),
		findings.New(findings.Notification, "the server sent notifications/aaa ×1 during the probe"),
		findings.New(findings.InvalidMessage, "stdout line 3: neither a request, a notification nor a response"),
	} {
		c := r.Wire.Capture
		saved := c.Findings
		c.Findings = append(slices.Clone(saved), f)
		var after bytes.Buffer
		reports.ReportMarkdown(&after, r, version)
		c.Findings = saved
		added, removed := lineDiff(before.String(), after.String())
		if len(removed) != 0 || len(added) != 1 || !strings.Contains(added[0], f.Message) {
			t.Errorf("%s: added %q, removed %q", f.Code, added, removed)
		}
	}
}

// lineDiff is the lines b adds to a and those it removes, by a line diff.
func lineDiff(a, b string) (added, removed []string) {
	dmp := diffmatchpatch.New()
	ca, cb, lines := dmp.DiffLinesToChars(a, b)
	for _, d := range dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines) {
		ls := strings.Split(strings.TrimSuffix(d.Text, "\n"), "\n")
		switch d.Type {
		case diffmatchpatch.DiffInsert:
			added = append(added, ls...)
		case diffmatchpatch.DiffDelete:
			removed = append(removed, ls...)
		}
	}
	return added, removed
}
