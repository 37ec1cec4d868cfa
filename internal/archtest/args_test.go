package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

// Argument generation and call planning live in probe/args, below every
// command that calls tools: faults and malformed once imported the bench
// command's package for them.
func TestArgsBelowTheCommands(t *testing.T) {
	for _, from := range []string{"faults", "probe/malformed"} {
		forbid(t, from, "probe/bench", "arguments and call planning come from probe/args, not from a peer command's package")
	}
	// Transitively: a command package reached through another is as much
	// a cycle waiting to happen as a direct import.
	out, err := exec.Command("go", "list", "-deps", module+"probe/args").Output()
	if err != nil {
		t.Fatalf("go list -deps probe/args: %v", err)
	}
	deps := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		deps[strings.TrimPrefix(line, module)] = true
	}
	if !deps["probe/args"] || !deps["probe"] {
		t.Fatalf("go list -deps probe/args lists neither it nor probe: %v", deps)
	}
	for _, cmd := range []string{"probe/bench", "faults", "probe/malformed", "probe/call", "probe/budget", "cmd/mcpprobe", "reports"} {
		if deps[cmd] {
			t.Errorf("probe/args depends on %s: it must stay below the commands that use it", cmd)
		}
	}
}
