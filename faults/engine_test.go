package faults

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/transport"
)

// hits plays n calls of tool a (and their replies) and lists the calls
// whose reply did not come out whole.
func hits(t *testing.T, v Values, seed uint64, n int) []int {
	t.Helper()
	r := newRig(t, Anywhere, v, seed)
	var script []string
	for i := 1; i <= n; i++ {
		script = append(script, "> "+call(i, "a"), "< "+reply(i))
	}
	got := strings.Join(r.play(script...), "")
	var out []int
	for i := 1; i <= n; i++ {
		if !strings.Contains(got, "C "+reply(i)+"\n") {
			out = append(out, i)
		}
	}
	return out
}

func TestMarking(t *testing.T) {
	tests := []struct {
		name string
		v    Values
		seed uint64
		want string
	}{
		{"the Nth call", Values{"drop-at": "3"}, 1, "[3]"},
		{"a call past the last", Values{"drop-at": "9"}, 1, "[]"},
		{"by tool", Values{"drop-at": "tool:a"}, 1, "[1 2 3 4 5 6]"},
		{"an unknown tool", Values{"drop-at": "tool:b"}, 1, "[]"},
		// The marking's stream is the seed's first: these are the calls
		// the shim and the proxy have always hit for p:0.5 with seed 3.
		{"seeded probability", Values{"drop-at": "p:0.5"}, 3, fmt.Sprint(legacyHits(3, 0.5, 6))},
		{"p:1 hits all", Values{"drop-at": "p:1"}, 9, "[1 2 3 4 5 6]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := fmt.Sprint(hits(t, tc.v, tc.seed, 6))
			if got != tc.want {
				t.Errorf("hit %s, want %s", got, tc.want)
			}
		})
	}
	if a, b := hits(t, Values{"drop-at": "p:0.5"}, 3, 20), hits(t, Values{"drop-at": "p:0.5"}, 4, 20); fmt.Sprint(a) == fmt.Sprint(b) {
		t.Errorf("seeds 3 and 4 hit the same calls: %v", a)
	}
}

// legacyHits draws as the two engines this one replaced did.
func legacyHits(seed uint64, p float64, n int) []int {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var out []int
	for i := 1; i <= n; i++ {
		if rng.Float64() < p {
			out = append(out, i)
		}
	}
	return out
}

func TestMarkingFrames(t *testing.T) {
	note := `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"a"}}` // no id: not a call
	init := `{"jsonrpc":"2.0","id":"i","method":"initialize"}`
	strID := `{"jsonrpc":"2.0","id":"x7","method":"tools/call","params":{"name":"a"}}`
	strReply := `{"jsonrpc":"2.0","id":"x7","result":{}}`
	ping := `{"jsonrpc":"2.0","id":"x7","method":"ping"}` // a server request reusing the id
	r := newRig(t, Anywhere, Values{"drop-at": "1"}, 1)
	got := r.play("> "+note, "> "+init, "< "+`{"jsonrpc":"2.0","id":"i","result":{}}`, "> "+strID, "< "+ping, "< "+strReply, "< "+strReply)
	diffLog(t, got, []string{sent("S", note), sent("S", init), sent("C", `{"jsonrpc":"2.0","id":"i","result":{}}`), sent("S", strID),
		sent("C", ping),      // a request from the server is not the call's reply
		sent("C", strReply)}) // the first reply was the call's, and dropped; a second is not
	diffLog(t, r.notes(), []string{"1: reply dropped (call 1)"})
}

func TestCounterAcrossRestarts(t *testing.T) {
	p, _ := ParsePlan(Values{"drop-at": "3"}.Get, 1)
	calls := new(Counter)
	var out []string
	for start := 0; start < 2; start++ {
		e, err := NewEngine(p, Frontend{Where: InShim, Calls: calls, Kill: func() {},
			ToServer: func(Piece) error { return nil },
			ToClient: func(pc Piece) error { out = append(out, string(pc.Raw)); return nil }})
		if err != nil {
			t.Fatal(err)
		}
		for id := 1; id <= 2; id++ {
			_ = e.FromClient([]byte(call(id, "a")))
			_ = e.FromServer(transport.Message{Raw: []byte(reply(id))})
		}
	}
	// Calls 1 and 2 on the first server, 3 and 4 on the second: call 3 is
	// the second server's id 1.
	if want := []string{reply(1), reply(2), reply(2)}; strings.Join(out, "|") != strings.Join(want, "|") {
		t.Errorf("out %q", out)
	}
}

func TestPipelineOrder(t *testing.T) {
	// Whatever the order given, faults act in rank order: garble before
	// pollute, so the stray text stays readable before a garbled reply.
	p, _ := ParsePlan(Values{"pollute": "line", "garble-at": "1"}.Get, 1)
	rev := Plan{Seed: p.Seed, Rules: []Rule{p.Rules[1], p.Rules[0]}}
	for _, plan := range []Plan{p, rev} {
		var out []string
		e, _ := NewEngine(plan, Frontend{Where: InProxy, Kill: func() {}, ToServer: func(Piece) error { return nil },
			ToClient: func(pc Piece) error { out = append(out, string(pc.Raw)); return nil }})
		_ = e.FromClient([]byte(call(1, "a")))
		_ = e.FromServer(transport.Message{Raw: []byte(reply(1))})
		if len(out) != 2 || out[0] != pollutionLine+"\n" || out[1] != string(garbled([]byte(reply(1)))) {
			t.Errorf("%s: out %q", plan, out)
		}
		if plan.String() != "garble at call 1, pollute (line) at call 1" {
			t.Errorf("String() = %q", plan)
		}
	}
}
