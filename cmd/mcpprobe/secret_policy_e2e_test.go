//go:build e2e

package main

// Which values are secrets (issue 23): a value that looks like a
// credential is hidden, one plainly not a secret is not, --secret-env
// marks one by hand, and credentials in a config's args are never shown.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestSecretPolicyEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		flags    []string
		variable string
		want     string // the instructions, "key is " and the value as shown
	}{
		{"a short word under a plain name is shown", []string{"-e", "MCP_VARIANT=rich"}, "MCP_VARIANT", "key is rich"},
		{"a token under a secret's name is hidden", []string{"-e", "API_TOKEN=abc123xyz789"}, "API_TOKEN", "key is ***"},
		{"--secret-env marks one by hand", []string{"-e", "MCP_VARIANT=rich", "--secret-env", "MCP_VARIANT"}, "MCP_VARIANT", "key is ***"},
		{"a token's shape under any name", []string{"-e", "MODE=sk-proj-abcdef123456"}, "MODE", "key is ***"},
		{"a random value under any name", []string{"-e", "MODE=abc123xyz789"}, "MODE", "key is ***"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append(append([]string{"wire", "--json"}, tc.flags...), "--", bin.raw, "-echo-env", tc.variable)
			r := probeRun(t, nil, nil, args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if got := gjson.Get(r.stdout, "wire.instructions").String(); got != tc.want {
				t.Errorf("instructions %q, want %q", got, tc.want)
			}
			if redacted := gjson.Get(r.stdout, "redacted").Bool(); redacted != strings.Contains(tc.want, "***") {
				t.Errorf(`"redacted" is %v`, redacted)
			}
			// The server's own words are never touched by a plain value.
			if !strings.Contains(r.stdout, `"rawserver"`) {
				t.Errorf("the server's name is gone: %.300s", r.stdout)
			}
		})
	}
}

func TestSecretPolicyConfigArgs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcp.json")
	args, _ := json.Marshal([]string{"-c", `exec "$0"`, bin.good, "--token=sk-live-123456789", "--api-key", "hunter2hunter2"})
	if err := os.WriteFile(cfg, []byte(`{"mcpServers":{"s":{"command":"sh","args":`+string(args)+`}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	runs := [][]string{
		{"servers", "--config", cfg},
		{"wire", "--json", "--config", cfg, "s"},
		{"report", "--config", cfg, "--all"},
		{"wire", "--json", "--config", cfg, "--all"},
	}
	for i, a := range runs {
		r := probeRun(t, nil, nil, a...)
		if r.code != 0 {
			t.Errorf("%q: exit %d: %s", a, r.code, r.stderr)
		}
		for _, secret := range []string{"sk-live-123456789", "hunter2hunter2"} {
			if strings.Contains(r.stdout+r.stderr, secret) {
				t.Errorf("%q shows %s:\n%s", a, secret, excerptAround(r.stdout+r.stderr, secret))
			}
		}
		// servers and a single server's --json show the command line.
		if i < 2 && (!strings.Contains(r.stdout, "--token=***") || !strings.Contains(r.stdout, "--api-key ***")) {
			t.Errorf("%q does not show the masked arguments:\n%.600s", a, r.stdout)
		}
	}
}

// A raw C1 control (U+009B, a CSI some terminals act on), a bidi override
// and a zero-width space in what a server sends are written as \u escapes
// in --json, --trace and snapshots: the same JSON values, no raw bytes.
func TestJSONEscapesInvisible(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trace, lock := filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "lock.json")
	server := []string{"--", bin.raw, "-raw-c1"}
	j := probeRun(t, nil, nil, append([]string{"wire", "--json", "--trace", trace}, server...)...)
	s := probeRun(t, nil, nil, append([]string{"snapshot", "-o", lock}, server...)...)
	sj := probeRun(t, nil, nil, append([]string{"snapshot", "--json"}, server...)...)
	if j.code != 0 || s.code != 0 || sj.code != 0 {
		t.Fatalf("exit %d, %d, %d: %s %s %s", j.code, s.code, sj.code, j.stderr, s.stderr, sj.stderr)
	}
	tr, _ := os.ReadFile(trace)
	lk, _ := os.ReadFile(lock)
	const want = "csi \u009b2J rlo \u202e zwsp \u200b end"
	for name, out := range map[string]string{"--json": j.stdout, "--trace": string(tr), "snapshot -o": string(lk), "snapshot --json": sj.stdout} {
		for _, raw := range []string{"\u009b", "\u202e", "\u200b"} {
			if strings.Contains(out, raw) {
				t.Errorf("%s holds a raw %q:\n%s", name, raw, excerptAround(out, raw))
			}
		}
		if !strings.Contains(out, `\u009b`) {
			t.Errorf("%s has no \\u009b escape", name)
		}
		// Every line (or the whole file) is valid JSON holding the value.
		docs := strings.Split(strings.TrimSpace(out), "\n")
		if name == "snapshot -o" {
			docs = []string{out}
		}
		holds := false
		for _, d := range docs {
			if !json.Valid([]byte(d)) {
				t.Errorf("%s: not valid JSON: %.200s", name, d)
			}
			var v any
			_ = json.Unmarshal([]byte(d), &v)
			b, _ := json.Marshal(v)
			var back any
			_ = json.Unmarshal(b, &back)
			holds = holds || strings.Contains(flatten(back), want)
		}
		if !holds && name != "--trace" {
			t.Errorf("%s: no string holds the server's text once decoded", name)
		}
	}
	if !gjson.Get(j.stdout, "escaped").Bool() {
		t.Errorf(`--json does not say "escaped": the server's bytes were rewritten`)
	}
	if gjson.Get(j.stdout, "wire.instructions").String() != want {
		t.Errorf("instructions %q", gjson.Get(j.stdout, "wire.instructions").String())
	}
	// The trace's raw decodes to the exact bytes the server sent.
	held := false
	for _, l := range strings.Split(strings.TrimSpace(string(tr)), "\n") {
		held = held || strings.Contains(gjson.Get(l, "raw").String(), want)
	}
	if !held {
		t.Error("no trace line's raw holds the server's exact text")
	}
}

// flatten is every string in v, joined.
func flatten(v any) string {
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v + "\n")
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	return b.String()
}

// A credential in mcpprobe's own environment is a secret of the run,
// should the server inherit it (whether it does is launch's choice).
func TestSecretPolicyInherited(t *testing.T) {
	t.Parallel()
	r := probeRun(t, []string{"GH_TOKEN=ghx-inherited123"}, nil, "wire", "--json", "--", bin.raw, "-echo-env", "GH_TOKEN")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, "ghx-inherited123") {
		t.Errorf("the inherited token is shown: %s", excerptAround(r.stdout+r.stderr, "ghx-inherited123"))
	}
	if got := gjson.Get(r.stdout, "wire.instructions").String(); got != "key is ***" && got != "key is " {
		t.Errorf("instructions %q", got)
	}
}
