package main

// Golden tests: each command's output (text, markdown, the --json
// envelope) from a recorded trace played back through the launcher's
// replay target, with no process and no clock of the server's. Each Run
// is called in-process and rendered as the CLI renders it (the same
// reports.Result, the same envelope); the result is compared with
// testdata/golden/NAME. After a change meant to alter the output,
// rewrite the files and review them in the diff:
//
//	go test ./cmd/mcpprobe -run Golden -update
//
// The traces were recorded with the built binary:
//
//	mcpprobe wire --trace testdata/goodserver.jsonl ./goodserver
//	mcpprobe wire --trace testdata/rawserver.jsonl -- ./rawserver -banner -pages 3 -instructions-len 600 -ansi -unknown-id

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	gold "github.com/mcpprobe/mcpprobe/fixtures/golden"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/budget"
	"github.com/mcpprobe/mcpprobe/probe/config"
	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/mcpprobe/mcpprobe/probe/diff"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/probe/report"
	"github.com/mcpprobe/mcpprobe/probe/snapshot"
	"github.com/mcpprobe/mcpprobe/probe/wire"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/mcpprobe/mcpprobe/transport"
)

// A replay delivers the recorded bytes, but stamps them with its own
// clock: durations are the one thing that varies from run to run. They
// are normalised, and nothing else is:
//   - in text and markdown, a duration as reports.Dur prints it
//     ("0.041 ms", "12.5 ms") becomes "N ms";
//   - in JSON, the value of every key ending in "_ns" becomes 0.
var (
	durText = regexp.MustCompile(`\b[0-9]+(\.[0-9]+)? ms\b`)
	durJSON = regexp.MustCompile(`("[a-z_]*_ns"):\s*[0-9]+`)
)

func normalise(b []byte) []byte {
	b = durText.ReplaceAll(b, []byte("N ms"))
	return durJSON.ReplaceAll(b, []byte("${1}: 0"))
}

// recorded is the options of a probe that plays testdata/NAME.jsonl.
func recorded(t *testing.T, name string) wire.Options {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	frames, err := transport.ReadTrace(f, 0)
	if err != nil {
		t.Fatal(err)
	}
	return wire.Options{Spec: dial.Spec{
		Target: launch.Target{Kind: "replay", Name: name, Frames: frames},
		Probe: probe.Options{Protocol: "auto", Timeout: bound(2 * time.Second), StartupTimeout: bound(2 * time.Second),
			DiscoverTimeout: time.Second, ClientVersion: version, MaxPages: 1000},
	}}
}

func TestGolden(t *testing.T) {
	t.Parallel()
	ref := "../../fixtures/goodserver/reference.anthropic.json"
	allHosts, err := hosts.Select(hosts.Known(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// --show-cut and --view show a cut: the last Claude Code that cuts at
	// 2,048 cuts goodserver's find_orders (2,172 units); today's, 4,096,
	// keeps it whole (budget-goodserver).
	claude, err := hosts.Select(hosts.Known(), []string{"claude-code@2.1.295"})
	if err != nil {
		t.Fatal(err)
	}
	// Each case runs one command's Run on a recording and returns what
	// the CLI would hand to emit, and the text of a variant when the
	// command's flags choose one.
	type run func(ctx context.Context, t *testing.T) reports.Result
	tests := []struct {
		name string
		run  run
		text string // the golden file's extension for the text: txt, md, or lock.json (snapshot's)
	}{
		{"wire-goodserver", func(ctx context.Context, t *testing.T) reports.Result {
			return reports.NewWire(must[wire.Result](t)(wire.Run(ctx, recorded(t, "goodserver"))))
		}, "txt"},
		{"wire-rawserver", func(ctx context.Context, t *testing.T) reports.Result {
			return reports.NewWire(must[wire.Result](t)(wire.Run(ctx, recorded(t, "rawserver"))))
		}, "txt"},
		{"budget-goodserver", func(ctx context.Context, t *testing.T) reports.Result {
			return reports.NewBudget(must[budget.Result](t)(budget.Run(ctx, budget.Options{Options: recorded(t, "goodserver"), Hosts: allHosts})), false, false)
		}, "txt"},
		{"budget-rawserver", func(ctx context.Context, t *testing.T) reports.Result {
			return reports.NewBudget(must[budget.Result](t)(budget.Run(ctx, budget.Options{Options: recorded(t, "rawserver"), Hosts: allHosts})), false, false)
		}, "txt"},
		{"budget-verbose-goodserver", func(ctx context.Context, t *testing.T) reports.Result {
			// --verbose: every table as it was before the answer came first.
			o := reports.NewBudget(must[budget.Result](t)(budget.Run(ctx, budget.Options{Options: recorded(t, "goodserver"), Hosts: allHosts})), false, false)
			// the same --json as budget-goodserver's
			return variant{Result: o, text: func(w io.Writer) { o.Text(&terminal.Screen{W: w, Verbose: true}) }, noJSON: true}
		}, "txt"},
		{"budget-show-cut-goodserver", func(ctx context.Context, t *testing.T) reports.Result {
			r := must[budget.Result](t)(budget.Run(ctx, budget.Options{Options: recorded(t, "goodserver"), Hosts: claude}))
			return reports.NewBudget(r, false, true)
		}, "txt"},
		{"budget-view-claude-code-goodserver", func(ctx context.Context, t *testing.T) reports.Result {
			r := must[budget.Result](t)(budget.Run(ctx, budget.Options{Options: recorded(t, "goodserver"), Hosts: allHosts, View: &claude[0]}))
			// --view takes no --json
			return variant{Result: reports.NewBudget(r, true, false), noJSON: true}
		}, "md"},
		{"diff-ref-goodserver", func(ctx context.Context, t *testing.T) reports.Result {
			live := recorded(t, "goodserver")
			return reports.NewDiff(must[diff.Result](t)(diff.Run(ctx, diff.Options{Ref: diff.Source{Path: ref, Name: "--ref"}, Live: diff.Source{Live: &live}})))
		}, "txt"},
		{"diff-goodserver-rawserver", func(ctx context.Context, t *testing.T) reports.Result {
			a, b := recorded(t, "goodserver"), recorded(t, "rawserver")
			return reports.NewDiff(must[diff.Result](t)(diff.Run(ctx, diff.Options{Ref: diff.Source{Live: &a}, Live: diff.Source{Live: &b}})))
		}, "txt"},
		{"snapshot-goodserver", func(ctx context.Context, t *testing.T) reports.Result {
			return reports.NewSnapshot(must[snapshot.Result](t)(snapshot.Run(ctx, snapshot.Options{Options: recorded(t, "goodserver")})))
		}, "lock.json"},
		{"report-goodserver", func(ctx context.Context, t *testing.T) reports.Result {
			return reports.NewReport(must[report.Result](t)(report.Run(ctx, report.Options{Options: recorded(t, "goodserver"), Hosts: allHosts, Date: "2026-12-02"})), version)
		}, "md"},
		{"report-rawserver", func(ctx context.Context, t *testing.T) reports.Result {
			return reports.NewReport(must[report.Result](t)(report.Run(ctx, report.Options{Options: recorded(t, "rawserver"), Hosts: allHosts, Date: "2026-12-02"})), version)
		}, "md"},
		{"report-verbose-rawserver", func(ctx context.Context, t *testing.T) reports.Result {
			o := reports.NewReport(must[report.Result](t)(report.Run(ctx, report.Options{Options: recorded(t, "rawserver"), Hosts: allHosts, Date: "2026-12-02"})), version)
			return variant{Result: o, text: func(w io.Writer) { o.Text(&terminal.Screen{W: w, Verbose: true}) }, noJSON: true}
		}, "md"},
		{"report-ref-goodserver", func(ctx context.Context, t *testing.T) reports.Result {
			return reports.NewReport(must[report.Result](t)(report.Run(ctx, report.Options{Options: recorded(t, "goodserver"), Hosts: claude, Ref: ref, Date: "2026-12-02"})), version)
		}, "md"},
		// report --config FILE --all: two servers alike (their findings
		// once, naming both), one apart, one that cannot be probed and one
		// turned off.
		{"report-config-all", func(ctx context.Context, t *testing.T) reports.Result {
			return reports.NewAll("report", recordedConfig(ctx, t), version, "2026-12-02")
		}, "md"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), bound(20*time.Second))
			defer cancel()
			o := tc.run(ctx, t)
			var text bytes.Buffer
			o.Text(&text)
			golden(t, tc.name+"."+tc.text, normalise(text.Bytes()))
			if v, ok := o.(variant); ok && v.noJSON {
				return
			}
			out := resultJSON(o)
			if err := jsonout.ValidateResult(out); err != nil {
				t.Errorf("--json does not validate: %v", err)
			}
			// Stored indented, key order kept, so a change reviews line by line.
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, out, "", "  "); err != nil {
				t.Fatalf("--json is not JSON: %v", err)
			}
			golden(t, tc.name+".json", normalise(pretty.Bytes()))
		})
	}
}

// resultJSON is res's --json with no gates: what the golden tests keep.
func resultJSON(res reports.Result) []byte {
	return envelopeOf(res, res.Findings(), nil, nil, res.Failure())
}

// variant is a command's Result with the text a flag of its chooses
// (--verbose, --show-cut, --view), and no --json golden of its own when
// the flag takes no --json or the --json is another case's.
type variant struct {
	reports.Result
	text   func(io.Writer)
	noJSON bool
}

func (v variant) Text(w io.Writer) {
	if v.text == nil {
		v.Result.Text(w)
		return
	}
	v.text(w)
}

// recordedConfig is report --config FILE --all on recordings: two
// servers alike (goodserver twice), one apart (rawserver), one that
// cannot be probed and one turned off.
func recordedConfig(ctx context.Context, t *testing.T) *config.Result {
	t.Helper()
	// Claude Code as it was up to 2.1.295, whose 2,048 cut falls inside
	// goodserver's find_orders: a finding both good servers share.
	hs := hosts.Known()
	old, err := hosts.Select(hs, []string{"claude-code@2.1.295"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range hs {
		if hs[i].ID == "claude-code" {
			hs[i] = old[0]
		}
	}
	servers := []launch.ConfigServer{{Name: "broken", Err: errors.New("command not found: mcp-broken")}, {Name: "good"}, {Name: "good-copy"},
		{Name: "off", Disabled: true}, {Name: "raw"}}
	trace := map[string]string{"good": "goodserver", "good-copy": "goodserver", "raw": "rawserver"}
	return must[config.Result](t)(config.Run(ctx, config.Options{Path: ".mcp.json", Format: launch.FormatJSON, Servers: servers, Jobs: 1, Hosts: hs,
		Run: func(ctx context.Context, _ int, s launch.ConfigServer) (config.Single, error) {
			return must[report.Result](t)(report.Run(ctx, report.Options{Options: recorded(t, trace[s.Name]), Hosts: hs, Date: "2026-12-02"})), nil
		}}))
}

// A report of every server says once what several servers' sections
// would each say: the findings they share (naming them), the delivery
// table's terms, the host profiles' date; and it writes no heading with
// nothing under it.
func TestConfigMarkdownSaysOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), bound(20*time.Second))
	defer cancel()
	var b bytes.Buffer
	reports.NewAll("report", recordedConfig(ctx, t), version, "2026-12-02").Text(&b)
	md := b.String()
	for _, once := range []string{
		"ALERTS only after the cut on Claude Code", // both good servers' finding
		"- \"whole\": delivered in full",
		"Host profiles measured ",
		"\"if loaded\": the host defers",
	} {
		if n := strings.Count(md, once); n != 1 {
			t.Errorf("%q is written %d times, want once", once, n)
		}
	}
	if !strings.Contains(md, "| servers `good`, `good-copy`: `find_orders`: ALERTS only after the cut") {
		t.Errorf("the shared finding does not name both servers")
	}
	// good's findings are all shared: no subsection of its own; raw's
	// are its own.
	if strings.Contains(md, "### Findings (good)") || strings.Contains(md, "### Findings (good-copy)") || !strings.Contains(md, "### Findings (raw)") {
		t.Errorf("server findings subsections: want raw's only")
	}
	lines := strings.Split(md, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		next := ""
		for _, n := range lines[i+1:] {
			if n != "" {
				next = n
				break
			}
		}
		if next == "" || strings.HasPrefix(next, "#") && strings.Count(next, "#") > strings.Count(l, "#") {
			t.Errorf("heading %q has nothing under it", l)
		}
	}
}

// must is the result of a Run that has to succeed on its recording:
// must[wire.Result](t)(wire.Run(ctx, o)).
func must[R any](t *testing.T) func(*R, error) *R {
	return func(r *R, err error) *R {
		t.Helper()
		if err != nil {
			t.Fatalf("a recorded run failed: %v", err)
		}
		return r
	}
}

// golden compares got with testdata/golden/name, or rewrites the file
// with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	gold.Check(t, filepath.Join("testdata", "golden", name), got, "go test ./cmd/mcpprobe -run Golden -update")
}
