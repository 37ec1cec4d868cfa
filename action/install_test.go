package action

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/internal/loadfactor"
)

// step is one step of the composite action, as action.yml lists it.
type step struct{ name, uses, run string }

// steps reads the runs.steps of action.yml. The file is ours and flat, so
// a line reader does; a step the reader cannot place fails the test
// rather than being skipped.
func steps(t *testing.T) []step {
	t.Helper()
	b, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var out []step
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case l == "  steps:":
			in = true
			continue
		case !in:
			continue
		}
		trim := strings.TrimSpace(l)
		if strings.HasPrefix(l, "    - ") {
			out = append(out, step{})
			trim = strings.TrimPrefix(trim, "- ")
		}
		if len(out) == 0 {
			continue
		}
		s := &out[len(out)-1]
		if v, ok := strings.CutPrefix(trim, "name: "); ok && strings.HasPrefix(l, "    ") && !strings.HasPrefix(l, "        ") {
			s.name = v
		}
		if v, ok := strings.CutPrefix(trim, "uses: "); ok {
			s.uses = v
		}
		if v, ok := strings.CutPrefix(trim, "run: "); ok {
			s.run = v
		}
	}
	return out
}

// The action installs mcpprobe from its own checkout or a release archive
// (install.sh), never with `go install …@version` of a module the proxy
// may not have (issue 26: the proxy answered 403).
func TestActionInstallsFromItsOwnCheckout(t *testing.T) {
	t.Parallel()
	ss := steps(t)
	var install *step
	for i := range ss {
		if strings.Contains(ss[i].run, "go install") {
			t.Errorf("step %q runs go install: %s", ss[i].name, ss[i].run)
		}
		if ss[i].name == "Install mcpprobe" {
			install = &ss[i]
		}
	}
	if install == nil {
		t.Fatalf("no step named Install mcpprobe in %+v", ss)
	}
	if install.run != `'"$GITHUB_ACTION_PATH/install.sh"'` {
		t.Errorf("Install mcpprobe runs %s, want install.sh from the action's path", install.run)
	}
	if len(ss) != 3 || ss[0].uses != "actions/setup-go@v5" || !strings.Contains(ss[2].run, "run.sh") {
		t.Errorf("steps = %+v, want setup-go, install, probe", ss)
	}
	b, err := os.ReadFile("install.sh")
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") && strings.Contains(l, "go install") {
			t.Errorf("install.sh:%d runs go install: %s", i+1, l)
		}
	}
}

// installEnv runs install.sh with a runner's environment in dir, and
// returns its output, exit code and the PATH additions it wrote.
func installEnv(t *testing.T, dir string, env ...string) (string, int, []string) {
	t.Helper()
	abs, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	ghPath := filepath.Join(dir, "github_path")
	// A build from the checkout compiles every package once with
	// -trimpath (about 2 minutes of CPU on 2 idle cores when the cache was
	// filled without it): the bound is 5 minutes there, scaled to the load.
	limit := loadfactor.Scale(5 * time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "install.sh")
	cmd.Env = append(os.Environ(), append([]string{"GITHUB_ACTION_PATH=" + abs, "GITHUB_PATH=" + ghPath,
		"RUNNER_TEMP=" + dir}, env...)...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("install.sh did not finish within %s (5 min scaled by the load factor %.1f); its output:\n%s", limit.Round(time.Second), loadfactor.Factor(), out)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("install.sh: %v\n%s", err, out)
	}
	b, _ := os.ReadFile(ghPath)
	return string(out), code, strings.Fields(string(b))
}

// archive is a release archive as scripts/release.sh lays it out: one
// folder named after the archive, holding the binary.
func archive(t *testing.T, name string, exe []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, h := range []*tar.Header{
		{Name: name + "/", Typeflag: tar.TypeDir, Mode: 0o755},
		{Name: name + "/mcpprobe", Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(exe))},
	} {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tw.Write(exe); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// With a version, install.sh downloads that release's archive, checks it
// against SHA256SUMS, and puts its binary on the PATH; an archive whose
// sum differs is refused and nothing is put on the PATH.
func TestInstallFromAReleaseArchive(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the test archive is a tar.gz with a shell script in it")
	}
	name := fmt.Sprintf("mcpprobe_1.2.3_%s_%s", runtime.GOOS, runtime.GOARCH)
	tgz := archive(t, name, []byte("#!/bin/sh\necho \"mcpprobe version v1.2.3 $*\"\n"))
	for _, tc := range []struct {
		name     string
		sum      [32]byte
		wantCode int
	}{
		{"sum matches", sha256.Sum256(tgz), 0},
		{"sum differs", sha256.Sum256([]byte("another archive")), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var got []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				got = append(got, r.URL.Path)
				mu.Unlock()
				switch r.URL.Path {
				case "/v1.2.3/" + name + ".tar.gz":
					_, _ = w.Write(tgz)
				case "/v1.2.3/SHA256SUMS":
					fmt.Fprintf(w, "%x  other.tar.gz\n%x  %s.tar.gz\n", sha256.Sum256(nil), tc.sum, name)
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			dir := t.TempDir()
			out, code, paths := installEnv(t, dir, "VERSION=v1.2.3", "RELEASES_URL="+srv.URL)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d\n%s", code, tc.wantCode, out)
			}
			if tc.wantCode != 0 {
				if len(paths) != 0 || !strings.Contains(out, "does not match the release's SHA256SUMS") {
					t.Errorf("a bad archive: PATH additions %v, output:\n%s", paths, out)
				}
				return
			}
			if len(paths) != 1 || paths[0] != filepath.Join(dir, "mcpprobe-bin") {
				t.Fatalf("PATH additions %v, want [%s]", paths, filepath.Join(dir, "mcpprobe-bin"))
			}
			if !strings.Contains(out, "mcpprobe version v1.2.3 --version") {
				t.Errorf("the installed binary did not run:\n%s", out)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) != 2 {
				t.Errorf("requests %v, want the archive and SHA256SUMS", got)
			}
		})
	}
}
