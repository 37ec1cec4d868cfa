//go:build linux

package launch

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/internal/loadfactor"
)

// A grandchild that left the server's group with setsid and ignores
// SIGTERM survives every signal to the group; as the probe is its
// subreaper, Stop finds it anyway, kills it and says so.
func TestStopKillsEscapedGrandchild(t *testing.T) {
	p, err := StartProcess(helperTarget(t, "escape"))
	if err != nil {
		t.Fatal(err)
	}
	lines := ready(t, p)
	pid, err := strconv.Atoi(lines[0])
	if err != nil {
		t.Fatal(lines)
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	if pgid, _ := syscall.Getpgid(pid); pgid == p.Pid() {
		t.Fatal("the grandchild did not leave the group")
	}
	r := p.Stop(time.Second)
	if len(r.Escaped) != 1 || !strings.HasPrefix(r.Escaped[0], "pid "+strconv.Itoa(pid)+" (") {
		t.Errorf("Escaped = %q, want the grandchild %d", r.Escaped, pid)
	}
	if r.Leftover {
		t.Error("Leftover set: the grandchild was not in the group")
	}
	if alive(pid) {
		t.Errorf("the escaped grandchild %d survived Stop", pid)
	}
}

// Interrupt kills every server at once, whatever it ignores, finds the
// processes they left, and refuses to start more.
func TestInterrupt(t *testing.T) {
	defer resetInterrupt()
	a, err := Start(context.Background(), helperTarget(t, "ignore-term"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := StartProcess(helperTarget(t, "escape"))
	if err != nil {
		t.Fatal(err)
	}
	lines := ready(t, b)
	escaped, _ := strconv.Atoi(lines[0])
	defer syscall.Kill(escaped, syscall.SIGKILL)
	_ = a.Conn().Send([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`))
	t0 := time.Now()
	phases := Interrupt("SIGINT")
	// Interrupt waits 200 ms for the groups to go (a timer), then
	// kills: the rest is work, slower on a loaded machine.
	if took := time.Since(t0); took > 200*time.Millisecond+loadfactor.Scale(700*time.Millisecond) {
		t.Errorf("Interrupt took %v", took)
	}
	// One per server: what the session waited for, or, for a bare
	// process, that it ran.
	joined := strings.Join(phases, "\n")
	if len(phases) != 2 || !strings.Contains(joined, "had not yet answered tools/list") ||
		!strings.Contains(joined, "(pid "+strconv.Itoa(b.Pid())+") was running") {
		t.Errorf("phases = %q", phases)
	}
	if !a.Process().Wait(time.Second) || !b.Wait(time.Second) {
		t.Fatal("a server outlived Interrupt")
	}
	// SIGKILL is sent at once; the process is gone when the kernel next
	// schedules it, which a loaded machine can put off for a while.
	for end := time.Now().Add(2 * time.Second); alive(escaped) && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(escaped) {
		t.Errorf("the escaped grandchild %d survived Interrupt", escaped)
	}
	if got := a.Process().StoppedBy(); !strings.Contains(got, "interrupted (SIGINT)") {
		t.Errorf("StoppedBy = %q", got)
	}
	a.Stop()
	b.Stop(time.Second)
	var ie *InterruptedError
	if _, err := Start(context.Background(), helperTarget(t, "clean"), Options{}); !errors.As(err, &ie) {
		t.Errorf("Start after Interrupt: %v, want an InterruptedError", err)
	}
}

func resetInterrupt() {
	reg.Lock()
	reg.interrupted = ""
	reg.Unlock()
}

// A marked server's leader can be reaped a moment before its stop
// reaches its orphans. A second server stopping in that moment, with no
// other process running, must leave them to the first: they carry its
// marker, and they are its finding (survey's "escaped-processes").
func TestOrphansStayWithTheirMarkedServer(t *testing.T) {
	ta := helperTarget(t, "escape")
	ta.Env = append(ta.Env, "MCPPROBE_TEST_MARK=a")
	ta.Marker = "MCPPROBE_TEST_MARK=a"
	a, err := StartProcess(ta)
	if err != nil {
		t.Fatal(err)
	}
	lines := ready(t, a)
	pid, err := strconv.Atoi(lines[0])
	if err != nil {
		t.Fatal(lines)
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	b, err := StartProcess(helperTarget(t, "clean"))
	if err != nil {
		t.Fatal(err)
	}
	ready(t, b)
	// a's leader dies and is reaped; its stop has not run yet.
	_ = syscall.Kill(a.Pid(), syscall.SIGKILL)
	if !a.Wait(loadfactor.Scale(10 * time.Second)) {
		t.Fatal("a's leader did not exit")
	}
	if rb := b.Stop(time.Second); len(rb.Escaped) != 0 {
		t.Errorf("b's stop reported %q, a's orphan", rb.Escaped)
	}
	if !alive(pid) {
		t.Fatal("b's stop killed a's orphan")
	}
	ra := a.Stop(time.Second)
	if len(ra.Escaped) != 1 || !strings.HasPrefix(ra.Escaped[0], "pid "+strconv.Itoa(pid)+" (") {
		t.Errorf("a's Escaped = %q, want its grandchild %d", ra.Escaped, pid)
	}
	if alive(pid) {
		t.Errorf("a's grandchild %d survived a's stop", pid)
	}
}
