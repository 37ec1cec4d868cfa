package load

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// part is a shard's --json output with random samples.
func part(t *testing.T, rng *rand.Rand, i, n int, target string, rates ...float64) (Part, [][]int64) {
	t.Helper()
	r := &Result{Sessions: 2, Shards: []Shard{{i, n}}, ShardsOf: n, Requests: 100, Calls: []CallPlan{{Tool: "echo", Args: json.RawMessage(`{}`)}}}
	r.Bound.MaxErrors = 0.01
	r.Generator = &Generator{CPUNs: int64(1000 * (i + 1)), Requests: 10 * (i + 1)}
	var all [][]int64
	for _, rate := range rates {
		s := &Series{Name: "all"}
		for k := 0; k < 20+rng.IntN(30); k++ {
			d := int64(rng.IntN(1_000_000)) + int64(rate)*1000
			s.add(Sample{Done: durationNs(d), Outcome: OK})
		}
		s.Summarize()
		m := *s
		m.Name = "tools/call echo"
		r.Steps = append(r.Steps, Step{Rate: rate, All: s, Methods: []*Series{&m}})
		all = append(all, s.SamplesNs)
	}
	ph := &Series{Name: "session: handshake"}
	ph.add(Sample{Done: durationNs(int64(1000 + i)), Outcome: OK})
	ph.Summarize()
	r.Phases = []*Series{ph}
	sec, _ := json.Marshal(r)
	env := fmt.Sprintf(`{"schema":"mcpprobe/result/v1","command":"load","target":%q,"protocol_version":"2025-11-25","load":%s}`, target, sec)
	p, err := ReadPart(fmt.Sprintf("part-%d.json", i), []byte(env))
	if err != nil {
		t.Fatal(err)
	}
	return p, all
}

func TestMergeExactPercentiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var parts []Part
	union := make([][]int64, 2)
	for i := 0; i < 3; i++ {
		p, s := part(t, rng, i, 3, "http://127.0.0.1:1/mcp", 10, 20)
		parts = append(parts, p)
		for j := range s {
			union[j] = append(union[j], s[j]...)
		}
	}
	// In any order.
	parts[0], parts[2] = parts[2], parts[0]
	m, err := Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Steps) != 2 || len(m.Shards) != 3 || m.Sessions != 6 {
		t.Fatalf("steps %d shards %v sessions %d", len(m.Steps), m.Shards, m.Sessions)
	}
	for j, st := range m.Steps {
		for _, q := range []struct {
			p   float64
			got float64
		}{{50, st.All.P50Ns}, {90, st.All.P90Ns}, {99, st.All.P99Ns}, {99.9, st.All.P999Ns}, {100, st.All.MaxNs}, {0, st.All.MinNs}} {
			if want := Percentile(union[j], q.p); q.got != want {
				t.Errorf("step %d p%g: %v, want %v over the union", j, q.p, q.got, want)
			}
		}
		if st.All.N != len(union[j]) || st.Methods[0].N != len(union[j]) {
			t.Errorf("step %d: n %d, want %d", j, st.All.N, len(union[j]))
		}
	}
	if m.Phases[0].N != 3 {
		t.Errorf("phase n %d", m.Phases[0].N)
	}
	if m.Knee.LastGoodRate == nil || *m.Knee.LastGoodRate != 20 {
		t.Errorf("knee %+v", m.Knee)
	}
	// The generators' CPU and requests add up: 1+2+3 µs over 10+20+30.
	if g := m.Generator; g == nil || g.CPUNs != 6000 || g.Requests != 60 || g.PerRequestNs() != 100 {
		t.Errorf("generator %+v", g)
	}
}

func TestMergeRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	mk := func(i, n int, target string, rates ...float64) Part {
		p, _ := part(t, rng, i, n, target, rates...)
		return p
	}
	const u = "http://127.0.0.1:1/mcp"
	for _, tc := range []struct {
		name  string
		parts []Part
		want  string
	}{
		{"a missing shard", []Part{mk(0, 3, u, 10), mk(2, 3, u, 10)}, "shards missing: [1] of 3"},
		{"a shard twice", []Part{mk(0, 2, u, 10), mk(0, 2, u, 10)}, "shard 0/2 given twice"},
		{"another target", []Part{mk(0, 2, u, 10), mk(1, 2, "http://127.0.0.1:2/mcp", 10)}, "target"},
		{"another shard count", []Part{mk(0, 2, u, 10), mk(1, 3, u, 10)}, "shard count"},
		{"another ramp", []Part{mk(0, 2, u, 10), mk(1, 2, u, 20)}, "step 1's rate"},
		{"nothing", nil, "give the shards' files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Merge(tc.parts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := ReadPart("x.json", []byte(`{"command":"bench","bench":{}}`)); err == nil || !strings.Contains(err.Error(), "not the output of load --json") {
		t.Fatalf("bench output read as a part: %v", err)
	}
}

func TestMergeShorterRamp(t *testing.T) {
	// Shard 1's ramp stopped after one step: the merge keeps the step
	// both ran and lists the other as not run.
	rng := rand.New(rand.NewPCG(5, 6))
	a, _ := part(t, rng, 0, 2, "u", 10, 20)
	b, _ := part(t, rng, 1, 2, "u", 10)
	m, err := Merge([]Part{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Steps) != 1 || len(m.NotRun) != 1 || m.NotRun[0] != 20 {
		t.Fatalf("steps %d not run %v", len(m.Steps), m.NotRun)
	}
}
