package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Two runs in one process share nothing: what the launcher found when it
// let the first run's server go (here max-bytes) is that run's, and the
// second run, whose server sent almost nothing, does not report it. The
// launcher's findings were once a package variable that every later run
// of the process reported again.
func TestLauncherFindingsArePerRun(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to run a server with")
	}
	env := []string{"PATH=" + os.Getenv("PATH")}
	first := runInProcess(env, "wire", "--json", "--max-bytes", "2000", "--", sh, "-c", "yes x")
	if first.code != exitNoTarget || !strings.Contains(first.stdout, `"code":"max-bytes"`) {
		t.Fatalf("the flooding server: exit %d, want %d with a max-bytes finding; stdout %.300s\nstderr %s", first.code, exitNoTarget, first.stdout, first.stderr)
	}
	for i, args := range [][]string{
		{"wire", "--json", "--", sh, "-c", "exit 0"},                   // the outcome's envelope
		{"wire", "--json", "--", sh, "-c", "echo '{not json'; exit 0"}, // and again, with stdout noise
	} {
		r := runInProcess(env, args...)
		if r.code != exitNoTarget || !strings.Contains(r.stdout, `"schema":"mcpprobe/result/v1"`) {
			t.Fatalf("run %d: exit %d, want %d with an envelope; stdout %.300s\nstderr %s", i+2, r.code, exitNoTarget, r.stdout, r.stderr)
		}
		if strings.Contains(r.stdout, "max-bytes") || strings.Contains(r.stderr, "max-bytes") {
			t.Errorf("run %d reports the first run's max-bytes finding:\n%.600s\n%s", i+2, r.stdout, r.stderr)
		}
	}
}
