package bench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/transport"
)

// BenchmarkCallOverPipe is the probe's real client path per tools/call:
// the fixture server over real pipes, for profiling the hot path.
func BenchmarkCallOverPipe(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "rawserver")
	if out, err := exec.Command("go", "build", "-o", bin, "../../fixtures/rawserver").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-bench-tools")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	errR, errW, _ := os.Pipe()
	defer errW.Close()
	conn := transport.NewStdio(in, out, errR, transport.StdioOptions{})
	ctx := context.Background()
	cl, err := probe.Connect(ctx, conn, probe.Options{Protocol: "2025-11-25", Timeout: time.Second, StartupTimeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	call := CallFunc(ctx, cl, Call{Tool: "echo", Args: []byte(`{"text":"a","n":3}`)}, time.Second)
	b.ResetTimer()
	for b.Loop() {
		if bad, err := call(); bad || err != nil {
			b.Fatal(err)
		}
	}
}
