package action

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeGitHub is the issue-comments API of one repository, on loopback.
type fakeGitHub struct {
	mu       sync.Mutex
	comments map[int]string // id → body, all on pull request 7
	next     int
	calls    []string // "METHOD path"
	auth     []string
}

func (g *fakeGitHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls = append(g.calls, r.Method+" "+r.URL.Path)
	g.auth = append(g.auth, r.Header.Get("Authorization"))
	var in struct{ Body string }
	switch {
	case r.Method == "GET" && r.URL.Path == "/repos/o/r/issues/7/comments":
		list := []map[string]any{{"id": 1, "body": "someone else's comment"}}
		for id, b := range g.comments {
			list = append(list, map[string]any{"id": id, "body": b})
		}
		_ = json.NewEncoder(w).Encode(list)
	case r.Method == "POST" && r.URL.Path == "/repos/o/r/issues/7/comments":
		_ = json.NewDecoder(r.Body).Decode(&in)
		g.next++
		g.comments[100+g.next] = in.Body
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"id":%d}`, 100+g.next)
	case r.Method == "PATCH" && strings.HasPrefix(r.URL.Path, "/repos/o/r/issues/comments/"):
		var id int
		fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/repos/o/r/issues/comments/"), "%d", &id)
		if _, ok := g.comments[id]; !ok {
			http.NotFound(w, r)
			return
		}
		_ = json.NewDecoder(r.Body).Decode(&in)
		g.comments[id] = in.Body
		fmt.Fprintf(w, `{"id":%d}`, id)
	default:
		http.NotFound(w, r)
	}
}

// A fake mcpprobe: the committed report is stale, diff finds nothing, the
// report prints a line that names the run, so an update can be told apart.
const fakeProbe = `#!/usr/bin/env bash
case "$1" in
report) if [ "$2" = --check ]; then printf -- '--- MCPPROBE.md (committed)\n+++ MCPPROBE.md (fresh)\n@@ -1 +1 @@\n-old\n+new\n'; echo "MCPPROBE.md is stale" >&2; exit 1; fi
        echo "# report run $RUN"; echo "args: $*" ;;
diff)   echo "no differences"; echo "args: $*" ;;
esac
`

func TestRunPostsThenUpdatesOneComment(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq not installed")
	}
	gh := &fakeGitHub{comments: map[int]string{}}
	srv := httptest.NewServer(gh)
	defer srv.Close()
	dir := t.TempDir()
	probe := filepath.Join(dir, "mcpprobe")
	event := filepath.Join(dir, "event.json")
	summary := filepath.Join(dir, "summary.md")
	if err := os.WriteFile(probe, []byte(fakeProbe), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(event, []byte(`{"pull_request":{"number":7}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(n int) (string, int) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "bash", "run.sh")
		cmd.Env = append(os.Environ(), "MCPPROBE="+probe, fmt.Sprintf("RUN=%d", n),
			"INPUT_SERVER=node dist/server.js", "INPUT_REPORT=MCPPROBE.md", "INPUT_REF=mcp.lock.json",
			"INPUT_FAIL_ON=error", "INPUT_COMMENT=true",
			"GITHUB_API_URL="+srv.URL, "GITHUB_REPOSITORY=o/r", "GITHUB_EVENT_NAME=pull_request",
			"GITHUB_EVENT_PATH="+event, "GITHUB_STEP_SUMMARY="+summary, "GITHUB_TOKEN=t0ken")
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("run.sh: %v\n%s", err, out)
		}
		return string(out), code
	}
	for n := 1; n <= 2; n++ {
		out, code := run(n)
		if code != 1 {
			t.Fatalf("run %d: exit %d, want 1 (stale report)\n%s", n, code, out)
		}
		gh.mu.Lock()
		if len(gh.comments) != 1 {
			t.Fatalf("run %d: %d comments of ours, want 1: %v", n, len(gh.comments), gh.calls)
		}
		for _, body := range gh.comments {
			for _, want := range []string{"<!-- mcpprobe-action -->", "is stale", "+new", fmt.Sprintf("# report run %d", n),
				"args: report --fail-on error -- node dist/server.js", "args: diff --ref mcp.lock.json --fail-on error -- node dist/server.js"} {
				if !strings.Contains(body, want) {
					t.Errorf("run %d: comment lacks %q:\n%s", n, want, body)
				}
			}
		}
		gh.mu.Unlock()
	}
	want := []string{"GET /repos/o/r/issues/7/comments", "POST /repos/o/r/issues/7/comments",
		"GET /repos/o/r/issues/7/comments", "PATCH /repos/o/r/issues/comments/101"}
	if strings.Join(gh.calls, "\n") != strings.Join(want, "\n") {
		t.Errorf("API calls:\n%s\nwant:\n%s", strings.Join(gh.calls, "\n"), strings.Join(want, "\n"))
	}
	for _, a := range gh.auth {
		if a != "Bearer t0ken" {
			t.Errorf("Authorization %q", a)
		}
	}
	s, err := os.ReadFile(summary)
	if err != nil || strings.Count(string(s), "## mcpprobe") != 2 {
		t.Errorf("job summary should hold both runs: %v\n%s", err, s)
	}
}

// Outside a pull request the script writes the summary and calls no API.
func TestRunOnPushCallsNoAPI(t *testing.T) {
	t.Parallel()
	gh := &fakeGitHub{comments: map[int]string{}}
	srv := httptest.NewServer(gh)
	defer srv.Close()
	dir := t.TempDir()
	probe := filepath.Join(dir, "mcpprobe")
	summary := filepath.Join(dir, "summary.md")
	if err := os.WriteFile(probe, []byte(fakeProbe), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "run.sh")
	cmd.Env = append(os.Environ(), "MCPPROBE="+probe, "INPUT_SERVER=./server",
		"GITHUB_API_URL="+srv.URL, "GITHUB_REPOSITORY=o/r", "GITHUB_EVENT_NAME=push",
		"GITHUB_STEP_SUMMARY="+summary, "GITHUB_TOKEN=t0ken")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run.sh: %v\n%s", err, out)
	}
	if len(gh.calls) != 0 {
		t.Errorf("API called on push: %v", gh.calls)
	}
	if s, _ := os.ReadFile(summary); !strings.Contains(string(s), "args: report -- ./server") {
		t.Errorf("summary lacks the report:\n%s", s)
	}
}
