//go:build e2e

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/transport"
)

// A trace recorded by wire --trace, played back through the launcher's
// replay target, gives the capture the live run gave, byte for byte: the
// seam the golden tests stand on.
func TestReplayGivesTheLiveCapture(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if r := mcpprobe(t, "wire", "--trace", path, bin.good); r.code != 0 {
		t.Fatalf("wire: exit %d: %s", r.code, r.stderr)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	frames, err := transport.ReadTrace(f, 0)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), bound(10*time.Second))
	defer cancel()
	po := probe.Options{Protocol: "auto", Timeout: bound(2 * time.Second), StartupTimeout: bound(2 * time.Second), DiscoverTimeout: time.Second, ClientVersion: version, RecheckTools: true, MaxPages: 1000}
	c, err := dial.Probe(ctx, dial.Spec{Target: launch.Target{Kind: "replay", Name: "recorded", Frames: frames}, Probe: po})
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	live, err := dial.Probe(ctx, dial.Spec{Target: launch.Target{Kind: "stdio", Command: bin.good}, Probe: po})
	if err != nil {
		t.Fatalf("live: %v", err)
	}
	if c.ProtocolVersion != live.ProtocolVersion || len(c.Tools.Items) != len(live.Tools.Items) || len(c.Tools.Items) == 0 {
		t.Fatalf("replay: version %q, %d tools; live: %q, %d tools", c.ProtocolVersion, len(c.Tools.Items), live.ProtocolVersion, len(live.Tools.Items))
	}
	for i := range c.Tools.Items {
		if !bytes.Equal(c.Tools.Items[i], live.Tools.Items[i]) {
			t.Errorf("tool %d differs:\nreplay %s\nlive   %s", i, c.Tools.Items[i], live.Tools.Items[i])
		}
	}
}
