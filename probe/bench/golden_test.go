package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	gold "github.com/mcpprobe/mcpprobe/fixtures/golden"
	"github.com/mcpprobe/mcpprobe/internal/loadfactor"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/args"
	"github.com/mcpprobe/mcpprobe/probe/bench"
	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/mcpprobe/mcpprobe/transport"
)

// The golden tests run bench in-process on traces recorded by
// `mcpprobe bench --trace`, each connection of the recording played back
// in the order bench started its servers, and compare the text, markdown
// and JSON renderings (indented, to read in a diff) with testdata/golden (go test ./probe/bench -run
// Golden -update rewrites them; review the diff).
//
// The recordings (from the repository root, the fixtures built into
// /tmp/f; the options must match the Options below):
//
//	mcpprobe bench --trace probe/bench/testdata/raw.jsonl -n 5 --warmup 1 --startup 2 -- /tmp/f/rawserver -bench-tools
//	mcpprobe bench --trace probe/bench/testdata/vs.jsonl -n 5 --warmup 1 --rounds 2 --call echo \
//	  --vs '/tmp/f/rawserver -bench-tools -call-sleep 1ms' -- /tmp/f/rawserver -bench-tools
//
// What a replay cannot make deterministic, and how the test deals with it:
//   - Every figure is wall-clock time, even on a replay. normalise replaces
//     each series' samples with a fixed ramp of the same length before
//     rendering, so the goldens pin the structure (series, counts,
//     errors, timeouts, plan, skipped tools, notes, layout), not speed.
//     Flags derived from figures (a slow first call, a host deadline
//     exceeded) are computed from the ramp, so never set here: their
//     rendering is tested in reports.
//   - A replay has no process: no first byte and no exit to time, so the
//     "spawn → first byte" and "stdin close → exit" series are absent
//     from the goldens (the e2e tests cover them on live servers).
var goldenCases = []struct {
	name  string
	trace string
	opts  func(a dial.Spec) bench.Options
}{
	{"raw", "raw.jsonl", func(a dial.Spec) bench.Options {
		return bench.Options{Spec: a, Startup: 2, N: 5, Warmup: 1, Concurrency: 1, AutoCalls: true}
	}},
	{"vs", "vs.jsonl", func(a dial.Spec) bench.Options {
		b := a
		b.Target.Name = "B (replayed)"
		return bench.Options{Spec: a, Vs: &b, Rounds: 2, Startup: 5, N: 5, Warmup: 1, Concurrency: 1, Calls: []args.Call{{Tool: "echo"}}}
	}},
}

func TestGolden(t *testing.T) {
	for _, gc := range goldenCases {
		t.Run(gc.name, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", gc.trace))
			if err != nil {
				t.Fatal(err)
			}
			frames, err := transport.ReadTrace(f, 0)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			// Copies of a replay target share its recording, so A and B
			// (with --vs) take their connections in the recorded order.
			spec := dial.Spec{
				Target: launch.ReplayTarget("A (replayed)", frames),
				Probe: probe.Options{Protocol: "auto", Timeout: 5 * time.Second, StartupTimeout: 5 * time.Second,
					DiscoverTimeout: 3 * time.Second, ClientVersion: "golden", MaxPages: 1000},
			}
			o := gc.opts(spec)
			o.Hosts = hosts.Known()
			o.OverheadCalls = 50
			ctx, cancel := context.WithTimeout(context.Background(), loadfactor.Scale(30*time.Second))
			defer cancel()
			r, err := bench.Run(ctx, o)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			normalise(r)
			var text, md bytes.Buffer
			reports.Bench(&text, terminal.Terminal, r)
			reports.Bench(&md, terminal.Markdown, r)
			js := jsonout.Envelope{Version: "golden", Command: "bench", Target: r.A.Target, ProtocolVersion: r.A.Protocol,
				Findings: r.Findings()}.JSON(reports.BenchJSON(r))
			if err := jsonout.ValidateResult(js); err != nil {
				t.Errorf("the JSON does not validate against the schema: %v", err)
			}
			golden(t, gc.name+".txt", text.Bytes())
			golden(t, gc.name+".md", md.Bytes())
			var indented bytes.Buffer
			if err := json.Indent(&indented, js, "", "  "); err != nil {
				t.Fatal(err)
			}
			golden(t, gc.name+".json", indented.Bytes())
		})
	}
}

// normalise replaces every measured figure with a ramp of the same
// length (1 µs, 2 µs, …), keeping counts, errors and timeouts; see the
// comment above goldenCases.
func normalise(r *bench.Result) {
	fix := func(s *bench.Stats) {
		errs, timeouts, firstErr := s.Errors, s.Timeouts, s.FirstError
		ramp := make([]int64, s.N)
		for i := range ramp {
			ramp[i] = int64(i+1) * 1000
		}
		*s = bench.Summarize(ramp)
		s.Errors, s.Timeouts, s.FirstError = errs, timeouts, firstErr
	}
	fixSeries := func(s *bench.Series) {
		fix(&s.Stats)
		for i := range s.RoundP50s {
			s.RoundP50s[i] = float64(i+1) * 1000
		}
	}
	sides := []*bench.Side{&r.A}
	if r.B != nil {
		sides = append(sides, r.B)
	}
	for _, side := range sides {
		for i := range side.Startup {
			fixSeries(&side.Startup[i])
		}
		for i := range side.Calls {
			fixSeries(&side.Calls[i])
		}
		if side.Ping != nil {
			fixSeries(side.Ping)
		}
	}
	fix(&r.Overhead)
	for i := range r.Compared {
		c := &r.Compared[i]
		*c = bench.Comparison{Name: c.Name, Ratio: 1, Low: 0.9, High: 1.1, P: 1, Rounds: c.Rounds}
	}
	for i := range r.Deadlines {
		d := &r.Deadlines[i]
		for _, s := range r.A.Startup {
			if s.Name == d.Series {
				d.Max, d.Exceeded = s.Max, s.Max > float64(d.Deadline)
			}
		}
	}
}

// golden compares got with testdata/golden/name, or rewrites it with
// -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	gold.Check(t, filepath.Join("testdata", "golden", name), got, "go test ./probe/bench -run Golden -update")
}
