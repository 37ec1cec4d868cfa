package check

import (
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe"
)

const (
	spGood     = `{"name":"lookup","inputSchema":{"type":"object","properties":{"query":{}}},"secureInputSchema":{"type":"object","properties":{"tenant":{"type":"string"}},"required":["tenant"]}}`
	spOptional = `{"name":"opt","inputSchema":{"type":"object"},"secureInputSchema":{"type":"object","properties":{"region":{}}}}`
	spOverlap  = `{"name":"lookup","inputSchema":{"type":"object","properties":{"tenant":{}}},"secureInputSchema":{"type":"object","properties":{"tenant":{}}}}`
	spShape    = `{"name":"lookup","inputSchema":{"type":"object"},"secureInputSchema":{"type":"string"}}`
	spPlain    = `{"name":"ping","inputSchema":{"type":"object"}}`
)

func tools(raw ...string) [][]byte {
	var out [][]byte
	for _, r := range raw {
		out = append(out, []byte(r))
	}
	return out
}

func TestJudgeSecureDefinitions(t *testing.T) {
	cases := []struct {
		name              string
		tools             [][]byte
		shape, overlap    string
		shapeHas, overHas string
	}{
		{"good", tools(spPlain, spGood), Pass, Pass, "1 secureInputSchema", "1 secureInputSchema"},
		{"none", tools(spPlain), NotApplicable, NotApplicable, "no tool", "no tool"},
		{"overlap", tools(spGood, spOverlap), Pass, Fail, "", `"tenant" in both`},
		{"shape", tools(spShape), Fail, Pass, `"string", not "object"`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := JudgeSecureShape(Modern, c.tools)
			o := JudgeSecureOverlap(Legacy, c.tools)
			if s.Outcome != c.shape || !strings.Contains(s.Why, c.shapeHas) {
				t.Errorf("shape: %s %q", s.Outcome, s.Why)
			}
			if o.Outcome != c.overlap || !strings.Contains(o.Why, c.overHas) {
				t.Errorf("overlap: %s %q", o.Outcome, o.Why)
			}
			if s.Outcome == Fail && s.Clause != secureShape || o.Outcome == Fail && o.Clause != secureOverlap {
				t.Errorf("a fail without its clause")
			}
		})
	}
}

func TestJudgeSecureOmit(t *testing.T) {
	cases := []struct {
		name              string
		negotiated, plain [][]byte
		want, has         string
	}{
		{"omitted", tools(spGood, spPlain), tools(spPlain), Pass, `("lookup")`},
		{"listed anyway", tools(spGood, spPlain), tools(spGood, spPlain), Warn, `"lookup"; such a client can never call them`},
		{"only optional secure params", tools(spOptional), tools(spOptional), NotApplicable, "no tool has required"},
		{"listed only un-negotiated", tools(spPlain), tools(spGood), Warn, `"lookup"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := JudgeSecureOmit(Modern, c.negotiated, c.plain)
			if v.Outcome != c.want || !strings.Contains(v.Why, c.has) {
				t.Errorf("%s %q", v.Outcome, v.Why)
			}
		})
	}
}

func spErr(code int64) Exchange {
	return Exchange{Method: "tools/call", Err: &probe.RPCError{Code: code, Message: "m"}, Raw: []byte(`{"error":{}}`)}
}

func okResult(body string) Exchange {
	return Exchange{Method: "tools/call", Result: []byte(body), Raw: []byte(`{"result":` + body + `}`)}
}

func TestJudgeSecureUnnegotiated(t *testing.T) {
	cases := []struct {
		name     string
		unlisted bool
		x        Exchange
		want     string
		clause   *Clause
	}{
		{"-32021", true, spErr(-32021), Pass, secureCodes},
		{"-32601 unlisted", true, spErr(-32601), Pass, secureCodes},
		{"-32601 listed", false, spErr(-32601), Warn, secureCodes},
		{"-32602", true, spErr(-32602), Warn, secureCodes},
		{"ran", true, okResult(`{"content":[]}`), Fail, secureExclusive},
		{"ran with isError", true, okResult(`{"content":[],"isError":true}`), Fail, secureExclusive},
		{"closed", true, Exchange{Method: "tools/call", NoReply: "closed"}, Fail, mustReply},
		{"timeout", true, Exchange{Method: "tools/call", NoReply: "timeout"}, Warn, mustReply},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := JudgeSecureUnnegotiated(Legacy, "lookup", c.unlisted, c.x)
			if v.Outcome != c.want || v.Clause != c.clause || v.ID != IDSecureUnneg {
				t.Errorf("%s %s %v %q", v.ID, v.Outcome, v.Clause, v.Why)
			}
		})
	}
}

func TestJudgeSecureCollision(t *testing.T) {
	ok := okResult(`{"content":[]}`)
	cases := []struct {
		name       string
		control, x Exchange
		want       string
	}{
		{"refused -32602", ok, spErr(-32602), Pass},
		{"accepted", ok, okResult(`{"content":[]}`), Fail},
		{"accepted though control failed", spErr(-32602), okResult(`{"content":[]}`), Fail},
		{"refused with another code", ok, spErr(-32603), Fail},
		{"control refused too", spErr(-32602), spErr(-32602), Inconclusive},
		{"control a tool error", okResult(`{"isError":true}`), spErr(-32602), Inconclusive},
		{"closed", ok, Exchange{NoReply: "closed"}, Fail},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := JudgeSecureCollision(Modern, "lookup", "tenant", c.control, c.x)
			if v.Outcome != c.want {
				t.Errorf("%s %q", v.Outcome, v.Why)
			}
		})
	}
}

func TestJudgeSecureNoEcho(t *testing.T) {
	task := okResult(`{"resultType":"task","taskId":"t1","status":"working"}`)
	legacyTask := okResult(`{"task":{"taskId":"t1","status":"working"}}`)
	vals := []string{"mcpprobe-secure-canary-1"}
	cases := []struct {
		name        string
		create, get Exchange
		want, has   string
	}{
		{"clean", task, okResult(`{"resultType":"complete","taskId":"t1","status":"completed"}`), Pass, "neither"},
		{"legacy clean", legacyTask, okResult(`{"taskId":"t1","status":"completed"}`), Pass, ""},
		{"member echoed", task, okResult(`{"taskId":"t1","secureArguments":{}}`), Fail, "secureArguments member"},
		{"value echoed", task, okResult(`{"taskId":"t1","statusMessage":"for mcpprobe-secure-canary-1"}`), Fail, "canary"},
		{"no task", okResult(`{"content":[]}`), Exchange{}, Inconclusive, "without a task"},
		{"call refused", spErr(-32602), Exchange{}, Inconclusive, ""},
		{"get refused", task, spErr(-32602), Inconclusive, "tasks/get"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := JudgeSecureNoEcho(Modern, "lookup", vals, c.create, c.get)
			if v.Outcome != c.want || !strings.Contains(v.Why, c.has) {
				t.Errorf("%s %q", v.Outcome, v.Why)
			}
		})
	}
}

func TestSecureArgs(t *testing.T) {
	b, vals := secureArgs([]byte(`{"secureInputSchema":{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"string","enum":["x"]},"n":{"type":"integer"}},"required":["b","a","n"]}}`))
	if string(b) != `{"a":"x","b":"mcpprobe-secure-canary-2","n":1}` || len(vals) != 1 || vals[0] != "mcpprobe-secure-canary-2" {
		t.Errorf("%s %v", b, vals)
	}
	// a hostile schema still gives an object
	if b, _ := secureArgs([]byte(`{"secureInputSchema":"x"}`)); string(b) != `{}` {
		t.Errorf("%s", b)
	}
	if got := string(withMember([]byte(`{"q":"a"}`), "tenant", `"v"`)); got != `{"q":"a","tenant":"v"}` {
		t.Errorf("withMember: %s", got)
	}
	if got := secureCaps(`{"elicitation":{},"extensions":{"x":{}}}`); got != `{"elicitation":{},"extensions":{"io.modelcontextprotocol/secure-params":{},"x":{}}}` {
		t.Errorf("secureCaps: %s", got)
	}
}

// Server names in a verdict are escaped and bounded.
func TestJudgeSecureHostileNames(t *testing.T) {
	long := strings.Repeat("é", 400)
	raw := `{"name":"a\u001b[2Jb","inputSchema":{"properties":{"x\u202ey":{},"` + long + `":{}}},"secureInputSchema":{"type":"object","properties":{"x\u202ey":{},"` + long + `":{}},"required":["x\u202ey"]}}`
	v := JudgeSecureOverlap(Modern, tools(raw))
	if v.Outcome != Fail || strings.ContainsAny(v.Why, "\x1b\u202e") || !strings.Contains(v.Why, `"a\x1b[2Jb"`) || len(v.Why) > 2000 {
		t.Errorf("%s %q", v.Outcome, v.Why)
	}
	o := JudgeSecureOmit(Modern, nil, tools(raw))
	if o.Outcome != Warn || strings.ContainsAny(o.Why, "\x1b\u202e") {
		t.Errorf("%s %q", o.Outcome, o.Why)
	}
}
