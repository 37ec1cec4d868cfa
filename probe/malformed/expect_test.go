package malformed

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/findings"
)

var allVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// expectations are what each case asks of a session at version v: the
// protocol cases, and the tool cases of a closed and an open schema.
func expectations(v string, http bool) map[string]Expectation {
	meta := ""
	if v >= "2026-07-28" {
		meta = `{}`
	}
	closed := []byte(`{"name":"c","inputSchema":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}}`)
	openTool := []byte(`{"name":"o","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}`)
	m := map[string]Expectation{}
	for _, c := range ToolCases(closed, BaselineArgs(closed), v, meta) {
		m[c.Name] = c.Expect
	}
	for _, c := range ToolCases(openTool, BaselineArgs(openTool), v, meta) {
		if c.Name == "unknown property" {
			m["unknown property (open schema)"] = c.Expect
		}
	}
	for _, c := range ProtocolCases(v, meta, "c", http) {
		m[c.Name] = c.Expect
	}
	return m
}

// answer is how a row writes what answered: a channel, or rpc_error with
// its code.
func parseAnswer(a string) (string, int64) {
	var code int64
	if n, _ := fmt.Sscanf(a, "rpc_error %d", &code); n == 1 {
		return RPCError, code
	}
	return a, 0
}

// The verdict table, case × version × answer: what each version's text
// makes of each answer. "all" is every version the case is sent in.
func TestVerdictTable(t *testing.T) {
	const all = "all"
	tests := []struct {
		kase     string
		versions string // "all", or versions separated by spaces
		answer   string
		verdict  string
	}{
		{"unknown tool", all, "rpc_error -32602", Pass},
		{"unknown tool", all, "rpc_error -32603", Observed}, // -32602 is the example
		{"unknown tool", all, IsError, Warn},                // TS SDK 1.x
		{"unknown tool", all, OK, Warn},
		{"unknown tool", all, NoAnswer, Warn},
		{"unknown tool", all, Crashed, Fail},

		{"invalid JSON", all, NoAnswer, Observed},
		{"invalid JSON", all, "rpc_error -32700", Observed},
		{"invalid JSON", all, OK, Observed},
		{"invalid JSON", all, Crashed, Warn}, // the Go SDK ends its session
		{"missing method", all, NoAnswer, Observed},
		{"missing method", all, "rpc_error -32600", Observed},
		{"missing method", all, Crashed, Warn},

		{"unknown method", all, "rpc_error -32601", Pass},
		{"unknown method", all, "rpc_error -32600", Warn},
		{"unknown method", all, OK, Fail},
		{"unknown method", all, IsError, Fail},
		{"unknown method", all, NoAnswer, Warn},
		{"unknown method", all, Crashed, Fail},

		{"bad cursor", all, "rpc_error -32602", Pass},
		{"bad cursor", all, "rpc_error -32600", Warn},
		{"bad cursor", all, OK, Warn},
		{"bad cursor", all, Crashed, Fail},

		{"cancel an unknown id", all, NoAnswer, Pass},
		{"cancel an unknown id", all, "rpc_error -32602", Fail},
		{"cancel an unknown id", all, OK, Fail},
		{"cancel an unknown id", all, Crashed, Warn},

		{"batch", "2025-03-26", OK, Pass},
		{"batch", "2025-03-26", "rpc_error -32600", Fail},
		{"batch", "2025-03-26", NoAnswer, Fail},
		{"batch", "2025-03-26", Crashed, Fail},
		{"batch", "2024-11-05 2025-06-18 2025-11-25 2026-07-28", OK, Observed},
		{"batch", "2024-11-05 2025-06-18 2025-11-25 2026-07-28", "rpc_error -32600", Observed},
		{"batch", "2024-11-05 2025-06-18 2025-11-25 2026-07-28", NoAnswer, Observed},
		{"batch", "2024-11-05 2025-06-18 2025-11-25 2026-07-28", Crashed, Warn},

		{"second initialize", "2024-11-05 2025-03-26 2025-06-18 2025-11-25", OK, Observed},
		{"second initialize", "2024-11-05 2025-03-26 2025-06-18 2025-11-25", "rpc_error -32600", Observed},
		{"second initialize", "2024-11-05 2025-03-26 2025-06-18 2025-11-25", Crashed, Warn},
		{"request before initialize", "2024-11-05 2025-03-26 2025-06-18 2025-11-25", OK, Observed},
		{"request before initialize", "2024-11-05 2025-03-26 2025-06-18 2025-11-25", "rpc_error -32601", Observed},
		{"request before initialize", "2024-11-05 2025-03-26 2025-06-18 2025-11-25", NoAnswer, Observed},

		{"arguments: null", all, "rpc_error -32602", Pass},
		{"arguments: null", all, "rpc_error -32603", Pass}, // the TS SDK's zod error
		{"arguments: null", all, IsError, Warn},
		{"arguments: null", all, OK, Warn},
		{"arguments: null", all, Crashed, Fail},

		{"wrong type (q)", "2024-11-05 2025-03-26 2025-06-18", "rpc_error -32602", Pass},
		{"wrong type (q)", "2024-11-05 2025-03-26 2025-06-18", "rpc_error -32603", Pass},
		{"wrong type (q)", "2024-11-05 2025-03-26 2025-06-18", IsError, Pass},
		{"wrong type (q)", "2025-11-25 2026-07-28", IsError, Pass},
		{"wrong type (q)", "2025-11-25 2026-07-28", "rpc_error -32602", Warn},
		{"wrong type (q)", all, OK, Warn},
		{"wrong type (q)", all, NoAnswer, Warn},
		{"wrong type (q)", all, Crashed, Fail},
		{"missing required (q)", "2025-11-25", IsError, Pass},
		{"missing required (q)", "2025-06-18", "rpc_error -32602", Pass},
		{"unknown property", "2024-11-05 2025-03-26 2025-06-18", "rpc_error -32602", Pass},
		{"unknown property", "2025-11-25 2026-07-28", "rpc_error -32602", Warn},
		{"unknown property", all, OK, Warn}, // zod strips it
		{"unknown property (open schema)", all, OK, Pass},
		{"unknown property (open schema)", all, IsError, Observed},
		{"unknown property (open schema)", all, "rpc_error -32602", Observed},

		{"1 MB string", all, OK, Pass},
		{"1 MB string", all, IsError, Pass},
		{"1 MB string", all, "rpc_error -32600", Pass},
		{"1 MB string", all, NoAnswer, Warn},
		{"1 MB string", all, Crashed, Fail},
		{"100-deep nesting", all, Crashed, Fail},
	}
	for _, tc := range tests {
		versions := allVersions
		if tc.versions != all {
			versions = strings.Fields(tc.versions)
		}
		for _, v := range versions {
			e, ok := expectations(v, false)[tc.kase]
			if !ok {
				if tc.versions == all && v >= "2026-07-28" && (tc.kase == "second initialize" || tc.kase == "request before initialize") {
					continue
				}
				t.Errorf("%s: no case %q", v, tc.kase)
				continue
			}
			ch, code := parseAnswer(tc.answer)
			if j := Judge(ch, code, e); j.Verdict != tc.verdict {
				t.Errorf("%s · %s answered %s: %s (%s), want %s", tc.kase, v, tc.answer, j.Verdict, j.Why, tc.verdict)
			}
		}
	}
	// 2026-07-28 over HTTP: -32601 for an unknown method is a MUST.
	e := expectations("2026-07-28", true)["unknown method"]
	if j := Judge(RPCError, -32600, e); j.Verdict != Fail || !strings.Contains(j.Clause.URL, "streamable-http") {
		t.Errorf("2026-07-28 HTTP unknown method -32600: %+v", j)
	}
	if j := Judge(RPCError, -32600, expectations("2026-07-28", false)["unknown method"]); j.Verdict != Warn {
		t.Errorf("2026-07-28 stdio unknown method -32600: %+v", j)
	}
}

// Whatever answers, a ✗ cites a MUST that binds the server; what binds
// only the client is never ✗; every verdict names a clause of the
// negotiated version (or of JSON-RPC, or JSON Schema).
func TestVerdictsRestOnClauses(t *testing.T) {
	answers := []string{OK, IsError, "rpc_error -32602", "rpc_error -32601", "rpc_error -32700", "rpc_error 0", NoAnswer, Crashed}
	for _, v := range allVersions {
		for _, http := range []bool{false, true} {
			for name, e := range expectations(v, http) {
				if e.Clause == nil {
					t.Errorf("%s %s: no clause", v, name)
					continue
				}
				if e.Clause.Binds != "server" && e.Clause.Binds != "client" {
					t.Errorf("%s %s: binds %q", v, name, e.Clause.Binds)
				}
				if e.Clause.Binds == "client" && e.Channel != NothingAsked {
					t.Errorf("%s %s: a clause that binds the client expects %s", v, name, e.Channel)
				}
				for _, a := range answers {
					ch, code := parseAnswer(a)
					j := Judge(ch, code, e)
					where := fmt.Sprintf("%s %s (http %v) answered %s → %s", v, name, http, a, j.Verdict)
					if j.Clause == nil || !strings.HasPrefix(j.Clause.URL, "https://") || j.Why == "" {
						t.Errorf("%s: no clause or reason: %+v", where, j)
						continue
					}
					if strings.Contains(j.Clause.URL, "modelcontextprotocol.io") && !strings.Contains(j.Clause.URL, "/"+specVersion(v)+"/") && j.Clause.Version != "2025-03-26" {
						t.Errorf("%s: cites %s, not the negotiated version's text", where, j.Clause.URL)
					}
					switch j.Verdict {
					case Fail:
						if !strings.HasPrefix(j.Clause.Keyword, "MUST") || j.Clause.Binds != "server" || j.Severity != findings.Error {
							t.Errorf("%s: a ✗ that rests on %+v (%s)", where, j.Clause, j.Severity)
						}
					case Warn:
						if j.Severity != findings.Warning {
							t.Errorf("%s: severity %s", where, j.Severity)
						}
					case Observed:
						if j.Severity != "" && j.Severity != findings.Info {
							t.Errorf("%s: observed with severity %s", where, j.Severity)
						}
					case Pass:
						if j.Severity != "" {
							t.Errorf("%s: pass with severity %s", where, j.Severity)
						}
					}
					if e.Channel == NothingAsked && (j.Verdict == Fail || j.Verdict == Pass) {
						t.Errorf("%s: the text leaves it open", where)
					}
				}
			}
		}
	}
}

func TestSpecVersion(t *testing.T) {
	for in, want := range map[string]string{
		"2024-11-05": "2024-11-05", "2024-10-07": "2024-11-05", "2025-03-26": "2025-03-26",
		"2025-07-01": "2025-06-18", "2025-11-25": "2025-11-25", "2026-07-28": "2026-07-28", "2027-01-01": "2026-07-28", "": "2024-11-05",
	} {
		if got := specVersion(in); got != want {
			t.Errorf("specVersion(%q) = %s, want %s", in, got, want)
		}
	}
}

// Every verdict any answer can get turns into a finding at a severity its
// code is registered for (NewAt panics on any other).
func TestEveryVerdictIsAFinding(t *testing.T) {
	answers := []string{OK, IsError, "rpc_error -32602", "rpc_error -32601", "rpc_error 0", NoAnswer, Crashed}
	for _, v := range allVersions {
		for _, http := range []bool{false, true} {
			var outs []Outcome
			for name, e := range expectations(v, http) {
				for _, a := range answers {
					ch, code := parseAnswer(a)
					o := Outcome{Case: name, Channel: ch, Code: code, Expected: e}
					if ch == RPCError {
						o.RawCode = fmt.Sprint(code)
					}
					outs = append(outs, o)
				}
			}
			r := Result{Protocol: v, Cases: judgeAll(outs, v)}
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Errorf("%s (http %v): %v", v, http, p)
					}
				}()
				r.Findings()
			}()
		}
	}
}
