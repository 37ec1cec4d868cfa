//go:build unix

package launch

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestGroupIsKilled: whatever ends the server, Kill (a crash) or Stop
// (a host letting it go), nothing of its process group survives, the
// grandchild it left behind included.
func TestGroupIsKilled(t *testing.T) {
	tests := []struct {
		name         string
		end          func(p *Process) ExitReport
		wantLeftover bool
	}{
		// Kill, then Stop to reap, as the contract says.
		{"Kill", func(p *Process) ExitReport { p.Kill(); p.Wait(KillWait); return p.Stop(time.Second) }, false},
		// The leader exits when stdin closes and no signal is sent: the
		// grandchild it left running is a leftover, killed and reported.
		{"Stop", func(p *Process) ExitReport { return p.Stop(2 * time.Second) }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := StartProcess(helperTarget(t, "grandchild"))
			if err != nil {
				t.Fatal(err)
			}
			lines := ready(t, p)
			if len(lines) != 1 {
				t.Fatalf("want the grandchild's pid, got %q", lines)
			}
			grandchild, err := strconv.Atoi(lines[0])
			if err != nil {
				t.Fatal(err)
			}
			if !alive(grandchild) {
				t.Fatal("the grandchild is not running before the test")
			}
			r := tc.end(p)
			if r.Leftover != tc.wantLeftover {
				t.Errorf("Leftover = %v, want %v (report %+v)", r.Leftover, tc.wantLeftover, r)
			}
			deadline := time.Now().Add(KillWait)
			for alive(grandchild) && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if alive(grandchild) {
				syscall.Kill(grandchild, syscall.SIGKILL)
				t.Errorf("the grandchild %d survived", grandchild)
			}
			if groupAlive(p.Pid()) {
				t.Errorf("the process group %d survived", p.Pid())
			}
		})
	}
}

// alive reports whether pid runs; a zombie, killed and waiting to be
// reaped by init, does not count.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] != 'Z' && stat[i+2] != 'X'
}
