package config

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/launch"
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
