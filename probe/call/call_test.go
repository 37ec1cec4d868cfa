package call

import (
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
	"github.com/tidwall/gjson"
)

func TestReplies(t *testing.T) {
	text := "forty-two"
	tests := []struct {
		name   string
		elicit string
		r      Replies
		caps   string
		method string
		answer string // "" when left to the default
	}{
		{"none", "", Replies{}, `{}`, "elicitation/create", ""},
		{"decline", "decline", Replies{}, `{"elicitation":{}}`, "elicitation/create", `{"action":"decline"}`},
		{"accept", `accept={"x":1}`, Replies{}, `{"elicitation":{}}`, "elicitation/create", `{"action":"accept","content":{"x":1}}`},
		{"sampling", "", Replies{Sampling: &text}, `{"sampling":{}}`, "sampling/createMessage", `{"role":"assistant","content":{"type":"text","text":"forty-two"},"model":"mcpprobe","stopReason":"endTurn"}`},
		{"sampling not elicitation", "", Replies{Sampling: &text}, `{"sampling":{}}`, "elicitation/create", ""},
		{"roots", "", Replies{Roots: []string{"file:///a", "file:///b"}}, `{"roots":{}}`, "roots/list", `{"roots":[{"uri":"file:///a"},{"uri":"file:///b"}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.r
			if tc.elicit != "" {
				a, c, err := ParseElicit(tc.elicit)
				if err != nil {
					t.Fatal(err)
				}
				r.Elicit, r.ElicitContent = a, c
			}
			if got := r.Capabilities(); got != tc.caps {
				t.Errorf("capabilities %s, want %s", got, tc.caps)
			}
			a := r.Answerer()
			if a == nil {
				if tc.answer != "" {
					t.Fatal("no answerer")
				}
				return
			}
			got, ok := a(tc.method, nil)
			if ok != (tc.answer != "") || string(got) != tc.answer {
				t.Errorf("answer %s %v, want %s", got, ok, tc.answer)
			}
			if ok && !gjson.Valid(string(got)) {
				t.Errorf("answer is not JSON: %s", got)
			}
		})
	}
	for _, bad := range []string{"maybe", "accept=[1]", "accept={x", ""} {
		if _, _, err := ParseElicit(bad); err == nil {
			t.Errorf("ParseElicit(%q) accepted", bad)
		}
	}
}

// The task lifecycle: what may follow what (2025-11-25).
func TestTaskTransitions(t *testing.T) {
	tests := []struct {
		name     string
		statuses []string
		bad      int // task-forbidden-transition findings
	}{
		{"working to completed", []string{"working", "working", "completed"}, 0},
		{"through input_required", []string{"working", "input_required", "working", "failed"}, 0},
		{"cancelled", []string{"working", "cancelled"}, 0},
		{"terminal is final", []string{"working", "completed", "working"}, 1},
		{"cancelled then completed", []string{"working", "cancelled", "completed"}, 1},
		{"unknown status", []string{"working", "paused"}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &caller{r: &Result{Name: "t", Task: &Task{ID: "x"}}}
			for i, s := range tc.statuses {
				c.observe(Poll{Method: "tasks/get", Seq: i}, gjson.Parse(`{"status":"`+s+`","pollInterval":1}`))
			}
			n := 0
			for _, f := range c.r.Findings() {
				if f.Code == findings.TaskForbiddenTransition {
					n++
				}
			}
			if n != tc.bad {
				t.Errorf("%d forbidden transitions, want %d: %+v", n, tc.bad, c.r.Findings())
			}
			if last := tc.statuses[len(tc.statuses)-1]; c.r.Task.Final != last {
				t.Errorf("final %q, want %q", c.r.Task.Final, last)
			}
		})
	}
	// pollInterval is honoured within bounds.
	c := &caller{r: &Result{Task: &Task{}}}
	for raw, want := range map[string]time.Duration{`{"status":"working","pollInterval":1}`: minPoll, `{"status":"working","pollInterval":3600000}`: maxPoll, `{"status":"working"}`: defaultPoll, `{"status":"working","pollInterval":700}`: 700 * time.Millisecond} {
		if got := c.observe(Poll{}, gjson.Parse(raw)); got != want {
			t.Errorf("%s: interval %v, want %v", raw, got, want)
		}
	}
}

// The progress timeline reaches probe/result's checks as it came: the
// token raw, a notification after the response marked, the findings
// about the call's tool.
func TestProgressChecked(t *testing.T) {
	tests := []struct {
		name   string
		token  string
		events []string // notifications/progress params, each a frame after the one before
		respAt int      // the response's frame; -1: none came
		codes  []findings.Code
	}{
		{"ours, increasing", "tok", []string{`{"progressToken":"tok","progress":1}`, `{"progressToken":"tok","progress":2,"total":2}`}, 9, nil},
		{"not increasing", "tok", []string{`{"progressToken":"tok","progress":2}`, `{"progressToken":"tok","progress":2}`}, 9, []findings.Code{findings.ProgressNotMonotonic}},
		{"another token", "tok", []string{`{"progressToken":"other","progress":1}`}, 9, []findings.Code{findings.ProgressUnknownToken}},
		{"a number is not our string", "tok", []string{`{"progressToken":1,"progress":1}`}, 9, []findings.Code{findings.ProgressUnknownToken}},
		{"progress without asking", "", []string{`{"progressToken":"x","progress":1}`}, 9, []findings.Code{findings.ProgressUnknownToken}},
		{"after the response", "tok", []string{`{"progressToken":"tok","progress":1}`, `{"progressToken":"tok","progress":2}`}, 0, []findings.Code{findings.ProgressAfterResponse}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &Result{Name: "t", Kind: "tool", Token: tc.token, Completed: tc.respAt >= 0, ResponseSeq: tc.respAt, Answered: 10 * time.Millisecond}
			for i, p := range tc.events {
				ev := Event{Kind: "notification", Method: "notifications/progress", Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":` + p + `}`), Seq: i, At: time.Duration(i+1) * time.Millisecond}
				r.Progress = append(r.Progress, progressOf(ev, tc.token))
			}
			r.analyse(Options{Hosts: []hosts.Host{}})
			var got []findings.Code
			for _, f := range r.Findings() {
				if f.Tool != "t" {
					t.Errorf("finding not about the tool: %+v", f)
				}
				got = append(got, f.Code)
			}
			if len(got) != len(tc.codes) {
				t.Fatalf("findings %v, want %v", got, tc.codes)
			}
			for i := range got {
				if got[i] != tc.codes[i] {
					t.Errorf("finding %d: %v, want %v", i, got[i], tc.codes[i])
				}
			}
		})
	}
}
