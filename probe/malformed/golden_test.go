package malformed_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	gold "github.com/mcpprobe/mcpprobe/fixtures/golden"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/probe/malformed"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
	"github.com/mcpprobe/mcpprobe/transport"
)

// The golden tests run malformed in-process on traces recorded by
// `mcpprobe malformed --trace`, each connection (the first listing, the
// session the cases go to, a fresh server for "request before
// initialize", a restart after a crash) played back in the order malformed
// started them, and compare the text, markdown and JSON renderings with
// testdata/golden (go test ./probe/malformed -run Golden -update rewrites
// them; review the diff). Nothing is normalised: a malformed run shows no
// times.
//
// The recordings are gzipped: each holds the 1 MB string case, twice when
// the server echoes it. Recorded from the repository root with the
// fixtures built into /tmp/f, then gzip -9; the options must match the
// Options below:
//
//	mcpprobe malformed --trace probe/malformed/testdata/raw.jsonl --timeout 500ms --call echo -- /tmp/f/rawserver -bench-tools
//	mcpprobe malformed --trace probe/malformed/testdata/good.jsonl --timeout 1s /tmp/f/goodserver
//	mcpprobe malformed --trace probe/malformed/testdata/outside.jsonl --timeout 500ms -- /tmp/f/rawserver -bench-tools -call-error "network unreachable: dial tcp 192.0.2.1:443" -error-code 0
var goldenCases = []struct {
	name    string
	timeout time.Duration
	tools   []string
}{
	// legacy era, a server that validates nothing: every kind of case,
	// fresh server included
	{"raw", 500 * time.Millisecond, []string{"echo"}},
	// modern era, the Go SDK: is_error for input errors, and a crash on
	// invalid JSON, after which the server is restarted
	{"good", time.Second, nil},
	// every tool fails for an outside reason: its cases are inconclusive;
	// the unknown method's code 0 is allowed, and worth info
	{"outside", 500 * time.Millisecond, nil},
}

func TestGolden(t *testing.T) {
	for _, gc := range goldenCases {
		t.Run(gc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				frames := readGz(t, filepath.Join("testdata", gc.name+".jsonl.gz"))
				o := malformed.Options{
					Spec: dial.Spec{
						Target: launch.ReplayTarget(gc.name+" (replayed)", frames),
						Probe: probe.Options{Protocol: "auto", Timeout: gc.timeout, StartupTimeout: 5 * time.Second,
							DiscoverTimeout: 3 * time.Second, ClientVersion: "golden", MaxPages: 1000},
					},
					Tools: gc.tools,
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				r, err := malformed.Run(ctx, o)
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				var text, md bytes.Buffer
				reports.Malformed(&text, terminal.Terminal, r)
				reports.Malformed(&md, terminal.Markdown, r)
				js := jsonout.Envelope{Version: "golden", Command: "malformed", Target: r.Target, ProtocolVersion: r.Protocol,
					Findings: r.Findings()}.JSON(reports.MalformedJSON(r))
				if err := jsonout.ValidateResult(js); err != nil {
					t.Errorf("the JSON does not validate against the schema: %v", err)
				}
				var indented bytes.Buffer
				if err := json.Indent(&indented, js, "", "  "); err != nil {
					t.Fatal(err)
				}
				golden(t, gc.name+".txt", text.Bytes())
				golden(t, gc.name+".md", md.Bytes())
				golden(t, gc.name+".json", indented.Bytes())
			})
		})
	}
}

func readGz(t *testing.T, path string) []transport.Frame {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	frames, err := transport.ReadTrace(z, 0)
	if err != nil {
		t.Fatal(err)
	}
	return frames
}

// golden compares got with testdata/golden/name, or rewrites it with
// -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	gold.Check(t, filepath.Join("testdata", "golden", name), got, "go test ./probe/malformed -run Golden -update")
}
