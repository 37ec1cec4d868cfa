package config

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/probe/wire"
	"github.com/mcpprobe/mcpprobe/transport"
)

type fake struct{ fs []findings.Finding }

func (f fake) Findings() []findings.Finding { return f.fs }
func (f fake) Counts() map[string]int       { return map[string]int{"drift": 1} }

func TestRun(t *testing.T) {
	tests := []struct {
		name      string
		servers   []launch.ConfigServer
		jobs      int
		failing   map[string]bool
		wantMax   int32 // most servers run at once, at most
		wantFail  int
		wantProbe int
	}{
		{name: "bounded by jobs", jobs: 2, wantMax: 2, wantProbe: 6,
			servers: []launch.ConfigServer{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}, {Name: "e"}, {Name: "f"}}},
		{name: "one at a time", jobs: 1, wantMax: 1, wantProbe: 3,
			servers: []launch.ConfigServer{{Name: "a"}, {Name: "b"}, {Name: "c"}}},
		{name: "a failure is a row; a disabled or unreadable server is not run", jobs: 4, wantMax: 4, wantFail: 2, wantProbe: 1,
			failing: map[string]bool{"b": true},
			servers: []launch.ConfigServer{{Name: "a"}, {Name: "b"}, {Name: "c", Disabled: true}, {Name: "d", Err: errors.New("no command")}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var now, most atomic.Int32
			var ran atomic.Int32
			o := Options{Servers: tc.servers, Jobs: tc.jobs, Run: func(ctx context.Context, i int, s launch.ConfigServer) (Single, error) {
				ran.Add(1)
				n := now.Add(1)
				for {
					m := most.Load()
					if n <= m || most.CompareAndSwap(m, n) {
						break
					}
				}
				time.Sleep(20 * time.Millisecond)
				now.Add(-1)
				if tc.failing[s.Name] {
					return nil, &probe.FatalError{What: "it crashed", Received: "stderr: boom", Try: "run it by hand"}
				}
				return fake{fs: []findings.Finding{findings.New(findings.Cut, "x is cut")}}, nil
			}}
			r, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if most.Load() > tc.wantMax {
				t.Errorf("%d ran at once, want at most %d", most.Load(), tc.wantMax)
			}
			if r.Failed() != tc.wantFail || r.Probed() != tc.wantProbe {
				t.Errorf("failed %d probed %d", r.Failed(), r.Probed())
			}
			for i, s := range r.Servers {
				if s.Name != tc.servers[i].Name {
					t.Errorf("row %d is %s, want %s", i, s.Name, tc.servers[i].Name)
				}
			}
			var failed, prefixed int
			for _, f := range r.Findings() {
				if f.Code == findings.ConfigServerFailed {
					failed++
				}
				if f.Code == findings.Cut && f.Message == "server `a`: x is cut" {
					prefixed++
				}
			}
			if failed != tc.wantFail || prefixed != 1 {
				t.Errorf("findings: %d failed, %d prefixed: %v", failed, prefixed, r.Findings())
			}
			if r.Counts()["drift"] != tc.wantProbe {
				t.Errorf("counts %v", r.Counts())
			}
		})
	}
}

func TestExplain(t *testing.T) {
	f := Explain(&probe.FatalError{What: "w", Received: "r", Try: "t"})
	if f != (Failure{"w", "r", "t"}) {
		t.Errorf("got %+v", f)
	}
	if f := Explain(errors.New("plain")); f != (Failure{What: "plain"}) {
		t.Errorf("got %+v", f)
	}
}

// resolve fills each runnable server's options before any starts: a
// target that cannot be had is its row's error, the file's startup
// timeout holds unless the user gave one, and traces go out in name
// order to the servers that will run, and only to them.
func TestResolve(t *testing.T) {
	list := []launch.ConfigServer{{Name: "a", StartupTimeout: 7 * time.Second}, {Name: "b"}, {Name: "c", Disabled: true},
		{Name: "d", Err: errors.New("no command")}, {Name: "e", StartupTimeout: 9 * time.Second}}
	for _, set := range []bool{false, true} {
		var traced []string
		next := 0
		o := FileOptions{StartupTimeoutSet: set,
			Target: func(s launch.ConfigServer) (wire.Options, error) {
				if s.Name == "b" {
					return wire.Options{}, errors.New("--header on a stdio server")
				}
				w := wire.Options{Progress: func(string) {}}
				w.Spec.Probe.StartupTimeout = time.Second
				return w, nil
			},
			Trace: func() *transport.Trace {
				next++
				return transport.NewTrace(time.Unix(int64(next), 0))
			}}
		l := append([]launch.ConfigServer(nil), list...)
		opts := resolve(l, o)
		for i, w := range opts {
			if w.Spec.Launch.Trace != nil {
				traced = append(traced, l[i].Name)
			}
			if w.Progress != nil {
				t.Errorf("%s keeps its own progress line", l[i].Name)
			}
		}
		if got := strings.Join(traced, " "); got != "a e" {
			t.Errorf("traced %q, want a e", got)
		}
		if !opts[0].Spec.Launch.Trace.Start().Before(opts[4].Spec.Launch.Trace.Start()) {
			t.Errorf("a's trace is not the first")
		}
		if l[1].Err == nil || list[1].Err != nil {
			t.Errorf("b's target error is not its row (or leaked into the caller's list): %v", l[1].Err)
		}
		want := map[bool]time.Duration{false: 7 * time.Second, true: time.Second}[set]
		if got := opts[0].Spec.Probe.StartupTimeout; got != want {
			t.Errorf("startup timeout set=%v: a waits %v, want %v", set, got, want)
		}
	}
}

// RunFile runs the command the kind names on each server; one that
// cannot start is its row, and Done counts every server run.
func TestRunFileCountsDone(t *testing.T) {
	for _, kind := range []Kind{Wire, Budget, Report} {
		var dones []int
		var mu sync.Mutex
		r, err := RunFile(context.Background(), FileOptions{Kind: kind, Jobs: 2, Date: "2026-12-02",
			Servers: []launch.ConfigServer{{Name: "a"}, {Name: "b", Disabled: true}, {Name: "c"}, {Name: "d"}},
			Target: func(s launch.ConfigServer) (wire.Options, error) {
				if s.Name == "d" {
					return wire.Options{}, errors.New("cannot have d")
				}
				w := wire.Options{}
				w.Spec.Target = launch.Target{Kind: "stdio", Command: filepath.Join(t.TempDir(), "no-such-server")}
				w.Spec.Probe.StartupTimeout = 5 * time.Second
				return w, nil
			},
			Done: func(done, of int) {
				mu.Lock()
				dones = append(dones, done*10+of)
				mu.Unlock()
			}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Failed() != 3 || r.Probed() != 0 || !r.NoneProbed() || fmt.Sprint(dones) != "[14 24]" {
			t.Errorf("%s: failed %d probed %d none %v dones %v", kind, r.Failed(), r.Probed(), r.NoneProbed(), dones)
		}
		if e := r.Servers[0].Err; e == nil || !strings.Contains(Explain(e).What, "no-such-server") {
			t.Errorf("%s: a's row error %v does not name its command", kind, e)
		}
	}
}
