//go:build unix

package oauth

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// TestCacheRefusals: what stands at the path and may not be a token
// cache is refused at once, with why, and never read or written.
func TestCacheRefusals(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "victim")
	if err := os.WriteFile(target, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(dir, "open")
	if err := os.WriteFile(open, []byte(`{"entries":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{link: "symbolic link", fifo: "not a regular file", "/dev/zero": "not a regular file", open: "mode 0644"} {
		done := make(chan error, 1)
		go func() {
			if err := CheckCache(path); err == nil || !strings.Contains(err.Error(), want) {
				done <- err
				return
			}
			_, err := readCache(path)
			if err == nil || !strings.Contains(err.Error(), want) {
				done <- err
				return
			}
			done <- nil
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s: %v, want %q", path, err, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the check hangs", path)
		}
	}
	// saveCache never writes through the link: the target keeps its bytes
	// and its mode.
	var said strings.Builder
	h := &Host{o: Options{CachePath: link, Prompt: &said}, tok: &oauth2.Token{AccessToken: "tok-canary"}, resource: "r", issuer: "i"}
	h.saveCache()
	b, _ := os.ReadFile(target)
	fi, _ := os.Stat(target)
	if string(b) != "precious\n" || fi.Mode().Perm() != 0o644 {
		t.Errorf("the link's target was written: %q %v", b, fi.Mode())
	}
	if !strings.Contains(said.String(), "symbolic link") {
		t.Errorf("no refusal said: %q", said.String())
	}
}

// TestCacheKeepsNoSecret: the file is 0600, written anew, without the
// client secret, and an older file's secret goes.
func TestCacheKeepsNoSecret(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.json")
	if err := os.WriteFile(path, []byte(`{"entries":{"old x":{"access_token":"a-old","client_secret":"old-secret-canary"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	h := &Host{o: Options{CachePath: path, ClientSecret: "secret-canary", Prompt: os.Stderr}, tok: &oauth2.Token{AccessToken: "tok-canary", RefreshToken: "rt-canary"},
		resource: "r", issuer: "i", client: client{id: "id", secret: "secret-canary"}}
	h.saveCache()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "secret-canary") || !strings.Contains(string(b), "rt-canary") {
		t.Errorf("cache: %s", b)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".cache.json.*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestCacheOtherOwner: a cache another user created (in a shared folder)
// is refused, even at mode 600.
func TestCacheOtherOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	path := filepath.Join(t.TempDir(), "theirs.json")
	if err := os.WriteFile(path, []byte(`{"entries":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	if err := CheckCache(path); err == nil || !strings.Contains(err.Error(), "owned by uid 4242") {
		t.Errorf("another's cache: %v", err)
	}
}
