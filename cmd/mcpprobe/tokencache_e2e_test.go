//go:build e2e && unix

package main

// Issue 36: --token-cache kept like an ssh key (Unix: FIFOs, modes and
// owners are Unix's).

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestTokenCacheLikeSSH: a link is never written through, a FIFO or a
// device never read (refused at once, exit 2), another user's cache or
// one mode 644 refused; the cache written holds no client secret.
func TestTokenCacheLikeSSH(t *testing.T) {
	t.Parallel()
	s := startAuthServer(t, "")
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	victim := p("victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, p("link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p("fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p("open"), []byte(`{"entries":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{p("link"): "symbolic link", p("fifo"): "not a regular file", "/dev/zero": "not a regular file", p("open"): "mode 0644"}
	if os.Geteuid() == 0 {
		if err := os.WriteFile(p("theirs"), []byte(`{"entries":{}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p("theirs"), 4242, 4242); err != nil {
			t.Fatal(err)
		}
		cases[p("theirs")] = "owned by uid 4242"
	}
	flags := []string{"--client-id", "mcpprobe-ci", "--client-secret-env", "CI_SECRET", "--issuer", s.Issuer}
	for path, want := range cases {
		r := probeRun(t, []string{"CI_SECRET=fixture-secret"}, nil, append(append([]string{"wire", "--token-cache", path}, flags...), s.URL)...)
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("--token-cache %s: exit %d, want 2 and %q:\n%s", path, r.code, want, r.stderr)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the link's target was written: %q", b)
	}
	if fi, _ := os.Stat(victim); fi.Mode().Perm() != 0o644 {
		t.Errorf("the link's target's mode changed: %v", fi.Mode())
	}
	cache := p("cache.json")
	if r := probeRun(t, []string{"CI_SECRET=fixture-secret"}, nil, append(append([]string{"wire", "--token-cache", cache}, flags...), s.URL)...); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	fi, err := os.Lstat(cache)
	if err != nil || fi.Mode().Perm() != 0o600 || !fi.Mode().IsRegular() {
		t.Fatalf("cache: %v %v", err, fi)
	}
	noLeak(t, "token cache", map[string]string{"cache": readAll(t, cache)}, []string{"fixture-secret"})
}
