//go:build e2e

package main

import (
	"strings"
	"testing"
	"time"
)

// TestStartupFailureExplained: every command that starts a server explains
// one that writes to stderr and exits at startup as wire does: what
// happened, what was received, what to try.
func TestStartupFailureExplained(t *testing.T) {
	t.Parallel()
	server := []string{"--", bin.raw, "-exit-before-init", "3"}
	explanation := func(t *testing.T, stderr string) (received, try string) {
		t.Helper()
		i := strings.Index(stderr, "\nReceived: ")
		j := strings.Index(stderr, "\nTry: ")
		if i < 0 || j < i {
			t.Fatalf("no Received and Try lines in:\n%s", stderr)
		}
		return stderr[i+1 : j], strings.TrimRight(stderr[j+1:], "\n")
	}
	wire := mcpprobe(t, append([]string{"wire"}, server...)...)
	if wire.code != 3 {
		t.Fatalf("wire: exit %d, want 3; stderr: %s", wire.code, wire.stderr)
	}
	wantReceived, wantTry := explanation(t, wire.stderr)
	if wantReceived != "Received: stderr: fatal: ORDERS_API_KEY is not set" || !strings.HasPrefix(wantTry, "Try: run the command by hand to see why it exits; mcpprobe passed only ") {
		t.Fatalf("wire's explanation changed:\n%s", wire.stderr)
	}
	tests := []struct {
		command string
		args    []string
	}{
		{"wire", nil},
		{"bench", []string{"--startup", "2"}},
		{"bench", []string{"--startup", "0"}},
		{"faults", nil},
		{"malformed", nil},
		{"check", nil},
	}
	for _, tc := range tests {
		t.Run(strings.Join(append([]string{tc.command}, tc.args...), " "), func(t *testing.T) {
			t.Parallel()
			args := append(append([]string{tc.command}, tc.args...), server...)
			r := mcpprobe(t, args...)
			if r.code != 3 {
				t.Fatalf("exit %d, want 3; stderr: %s", r.code, r.stderr)
			}
			received, try := explanation(t, r.stderr)
			if received != wantReceived || try != wantTry {
				t.Errorf("got\n%s\n%s\nwant, as wire says,\n%s\n%s", received, try, wantReceived, wantTry)
			}
			for _, want := range []string{"exited before it answered", "(exit status 3)"} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			if strings.Contains(r.stderr, "closed its output") {
				t.Errorf("stderr says only that the server closed its output:\n%s", r.stderr)
			}
			if r.took > bound(10*time.Second) {
				t.Errorf("took %v", r.took)
			}
		})
	}
}
