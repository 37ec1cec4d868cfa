package check

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/mcpprobe/mcpprobe/probe/mrtr"
	"github.com/tidwall/gjson"
)

// maxToolCalls bounds the read-only tools the modern checks call looking
// for an input_required or a task result.
const maxToolCalls = 6

// listenWait bounds the wait for a subscription's acknowledgment.
const listenWait = 5 * time.Second

// window is one request's time on the wire and the log level it set.
type window struct {
	from, to time.Duration
	level    string
}

// modernChecks runs this file's checks of one era after the lists.
func (s *session) modernChecks(era string, caps []byte, lists map[string]Exchange, hs Exchange) []Verdict {
	vs := []Verdict{s.deterministic(era, caps, lists["tools"])}
	if era != Modern {
		return vs
	}
	vs = append(vs, s.caching(caps, lists, hs)...)
	s.o.say("unsupported protocol version")
	before := len(s.seen)
	uv := JudgeUnsupportedVersion(s.raw("server/discover", "", s.metaFor(bogusVersion, "{}", ""), `"_meta":{"io.modelcontextprotocol/protocolVersion":"`+bogusVersion+`",…}`))
	if uv.Outcome == Fail {
		uv.Why += fmt.Sprintf(" (asked on the session's connection after %d requests; each request's version is judged on its own)", before)
	}
	vs = append(vs, uv)
	vs = append(vs, s.toolCalls(caps)...)
	vs = append(vs, s.readUnknown(caps))
	vs = append(vs, s.listen(caps))
	return vs
}

// deterministic asks tools/list again in the session, and once on a
// second start of the server (a second connection over HTTP).
func (s *session) deterministic(era string, caps []byte, first Exchange) Verdict {
	if !declared(caps, "tools") || first.Result == nil {
		return JudgeDeterministic(era, caps, first, nil)
	}
	s.o.say("tools/list again, and after a second start")
	later := []Listing{{What: "call 2 in the same session", X: s.ask("tools/list", "")}}
	version := s.cl.Capture.RequestedVersion
	if era == Modern {
		version = probe.ModernVersions[0]
	}
	what := "call 1 after a second start"
	if s.o.Target.Kind == "http" || s.o.Target.Kind == "sse" {
		what = "call 1 on a second connection"
	}
	ss, err := dial.Start(s.ctx, s.o.pinned(version))
	if err == nil {
		// Started after this one, as it would be after the era: the
		// two boot together.
		s.startMalformed(era)
		if cerr := ss.Connect(s.ctx); cerr != nil {
			err = ss.Explain(cerr)
			ss.Close()
		}
	}
	if err != nil {
		v := JudgeDeterministic(era, caps, first, later)
		v.Why += "; the second start failed, so only one session was compared: " + firstLine(err)
		return v
	}
	r, err := ss.Client.Request(s.ctx, "tools/list", "", s.o.Probe.Timeout)
	ss.Close()
	later = append(later, Listing{What: what, X: exchanged(Exchange{Method: "tools/list"}, r, err)})
	return JudgeDeterministic(era, caps, first, later)
}

// caching judges the caching hints of server/discover, the lists, and
// (when resources are declared) the templates list and a read of the
// first resource listed.
func (s *session) caching(caps []byte, lists map[string]Exchange, hs Exchange) []Verdict {
	xs := []Exchange{hs}
	for _, k := range []string{"tools", "prompts", "resources"} {
		if x, ok := lists[k]; ok {
			xs = append(xs, x)
		}
	}
	// the later pages of the whole tools list (inputSchemas asked for it)
	for _, pg := range s.cl.Capture.Tools.Pages {
		if pg.N > 1 {
			xs = append(xs, Exchange{Method: "tools/list", Params: `"cursor":` + quoteJSON(pg.Cursor), Raw: pg.Raw, Result: pg.Result})
		}
	}
	if declared(caps, "resources") {
		s.o.say("resources/templates/list, resources/read")
		xs = append(xs, s.ask("resources/templates/list", ""))
		if uri := gjson.GetBytes(lists["resources"].Result, "resources.0.uri"); uri.Type == gjson.String {
			xs = append(xs, s.ask("resources/read", `"uri":`+uri.Raw))
		}
	}
	return JudgeCaching(xs)
}

// metaFor is a modern _meta for version with the client capabilities
// caps and extra members.
func (s *session) metaFor(version, caps, extra string) string {
	info := gjson.Get(s.cl.Meta(), `io\.modelcontextprotocol/clientInfo`).Raw
	if info == "" {
		info = `{"name":"mcpprobe","version":"0"}`
	}
	m := `{"` + probe.MetaProtocolVersion + `":` + quoteJSON(version) + `,"` + probe.MetaClientCapabilities + `":` + caps + `,"` + probe.MetaClientInfo + `":` + info
	if extra != "" {
		m += "," + extra
	}
	return m + "}"
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// raw sends method with members and the given _meta, keeping the window
// it took; shown is the params as a verdict shows them.
func (s *session) raw(method, members, meta, shown string) Exchange {
	x, _ := s.windowed(method, members, meta, shown, "")
	return x
}

// windowed sends a request and records the time it took on the wire
// with the log level it set.
func (s *session) windowed(method, members, meta, shown, level string) (Exchange, window) {
	x := Exchange{Method: method, Params: shown}
	if members != "" {
		members += ","
	}
	p, err := s.cl.Session.Begin(s.ctx, method, []byte(`{`+members+`"_meta":`+meta+`}`))
	if err != nil {
		return exchanged(x, probe.Response{}, err), window{}
	}
	r, err := p.Wait(s.ctx, s.o.Probe.Timeout)
	w := window{from: p.Sent, to: r.T, level: level}
	if r.T == 0 {
		w.to = p.Sent + s.o.Probe.Timeout
	}
	x = exchanged(x, r, err)
	s.seen = append(s.seen, x)
	return x, w
}

// callCaps is what the tool calls declare: every input a server may ask
// for, and the tasks extension.
const (
	callCaps   = `{"elicitation":{},"sampling":{},"roots":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	noTaskCaps = `{"elicitation":{},"sampling":{},"roots":{}}`
)

// toolCalls calls the server's read-only tools with arguments from their
// schemas, looking for an input_required result (the round trip and the
// tampered state) and a task (the extension's shape), then calls the
// first once more with a log level, and judges the log messages.
func (s *session) toolCalls(caps []byte) []Verdict {
	type found struct {
		tool, members string
		x             Exchange
	}
	var mrtr, task found
	var windows []window
	var tools []string
	version := s.cl.Capture.ProtocolVersion
	if declared(caps, "tools") {
		for _, raw := range s.callable() {
			if len(tools) < maxToolCalls || len(s.o.Calls) > 0 {
				name := gjson.GetBytes(raw, "name")
				tools = append(tools, `"name":`+name.Raw+`,"arguments":`+string(s.o.argsFor(raw)))
			}
		}
	}
	for _, members := range tools {
		if mrtr.tool != "" && task.tool != "" {
			break
		}
		name := gjson.Get("{"+members+"}", "name").String()
		s.o.say("tools/call " + name)
		x, w := s.windowed("tools/call", members, s.metaFor(version, callCaps, ""), bound(members), "")
		windows = append(windows, w)
		switch gjson.GetBytes(x.Result, "resultType").String() {
		case "input_required":
			if mrtr.tool == "" {
				mrtr = found{name, members, x}
			}
		case "task":
			if task.tool == "" {
				task = found{name, members, x}
			}
		}
	}
	var vs []Verdict
	if s.o.NoToolCalls && declared(caps, "tools") {
		vs = append(vs, notApplicable(IDRoundTrip, Modern, NotRun), notApplicable(IDTamperedState, Modern, NotRun))
		vs = append(vs, notApplicable(IDDeclaredInputs, Modern, NotRun))
	} else if mrtr.tool == "" {
		why := fmt.Sprintf("no tools/call of the %d read-only tool(s) called returned resultType \"input_required\" (tools not annotated readOnlyHint are not called)", len(tools))
		if len(tools) == 0 && declared(caps, "tools") && len(s.cl.Capture.Tools.Items) > 0 {
			why = "no tool may be called without consent (readOnlyHint true, no destructiveHint, every hint a plain boolean; or named with --call), so none could return resultType \"input_required\""
		}
		vs = append(vs, notApplicable(IDRoundTrip, Modern, why), notApplicable(IDTamperedState, Modern, why))
		vs = append(vs, notApplicable(IDDeclaredInputs, Modern, why))
	} else {
		vs = append(vs, s.roundTrip(version, mrtr.tool, mrtr.members, mrtr.x, &windows)...)
		vs = append(vs, s.declaredInputsRun(version, mrtr.tool, mrtr.members))
	}
	var unasked, get Exchange
	if task.tool != "" {
		x, w := s.windowed("tools/call", task.members, s.metaFor(version, noTaskCaps, ""), bound(task.members)+" (without the tasks extension)", "")
		unasked, windows = x, append(windows, w)
		if id := gjson.GetBytes(task.x.Result, "taskId"); id.Type == gjson.String {
			x, w := s.windowed("tasks/get", `"taskId":`+id.Raw, s.metaFor(version, callCaps, ""), `"taskId":`+bound(id.Raw), "")
			get, windows = x, append(windows, w)
		}
	}
	tv := JudgeTasks(caps, task.tool, task.x, unasked, get)
	if s.o.NoToolCalls && tv.Outcome == NotApplicable && declared(caps, `extensions.io\.modelcontextprotocol/tasks`) {
		tv.Why = NotRun
	}
	vs = append(vs, tv)
	asked := ""
	if len(tools) > 0 && declared(caps, "logging") {
		asked = "warning"
		s.o.say("tools/call with a log level")
		_, w := s.windowed("tools/call", tools[0], s.metaFor(version, noTaskCaps, `"io.modelcontextprotocol/logLevel":"`+asked+`"`), bound(tools[0]), asked)
		windows = append(windows, w)
	}
	if s.o.NoToolCalls && declared(caps, "logging") {
		// no call, no window to judge: a pass would judge nothing
		return append(vs, notApplicable(IDLogLevel, Modern, NotRun))
	}
	return append(vs, JudgeLogLevel(caps, asked, s.logged(windows)))
}

// logged is each notifications/message that came during one of the
// windows, with the level its request set.
func (s *session) logged(windows []window) []Logged {
	var out []Logged
	for _, e := range s.cl.Session.Events() {
		if e.Method != "notifications/message" {
			continue
		}
		for _, w := range windows {
			if e.T >= w.from && e.T <= w.to {
				out = append(out, Logged{Raw: e.Raw, Asked: w.level})
				break
			}
		}
	}
	return out
}

// roundTrip answers an input_required result with what it asks for, then
// retries once more with the requestState changed.
func (s *session) roundTrip(version, tool, members string, first Exchange, windows *[]window) []Verdict {
	in, _ := mrtr.Read(first.Result)
	state := gjson.GetBytes(first.Result, "requestState")
	responses, _ := mrtr.Responses(in.Requests, nil, nil)
	retry := in.Retry(members, responses)
	s.o.say("tools/call " + tool + " with inputResponses")
	x, w := s.windowed("tools/call", retry, s.metaFor(version, callCaps, ""), bound(retry), "")
	*windows = append(*windows, w)
	vs := []Verdict{JudgeInputRequired(tool, first, x)}
	if vs[0].Outcome == Fail || state.Type != gjson.String {
		return append(vs, JudgeTampered(tool, false, Exchange{}))
	}
	tampered := members + `,"inputResponses":` + responses + `,"requestState":` + quoteJSON(tamper(state.String()))
	s.o.say("tools/call " + tool + " with a tampered requestState")
	t, w := s.windowed("tools/call", tampered, s.metaFor(version, callCaps, ""), bound(tampered), "")
	*windows = append(*windows, w)
	return append(vs, JudgeTampered(tool, true, t))
}

// tamper changes one character in the middle of a state, keeping its
// length and its alphabet.
func tamper(state string) string {
	if state == "" {
		return "x"
	}
	b := []byte(state)
	i := len(b) / 2
	for i < len(b)-1 && b[i] >= 0x80 {
		i++
	}
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

// listen opens a subscription for the change notifications the server
// declares, waits for its acknowledgment, then cancels it.
func (s *session) listen(caps []byte) Verdict {
	filter := listenFilter(caps)
	if filter == "" {
		return JudgeListen(caps, 0, Exchange{}, nil)
	}
	s.o.say("subscriptions/listen")
	members := `"notifications":{` + filter + `}`
	x := Exchange{Method: "subscriptions/listen", Params: members}
	meta := s.metaFor(s.cl.Capture.ProtocolVersion, "{}", "")
	p, err := s.cl.Session.Begin(s.ctx, "subscriptions/listen", []byte(`{`+members+`,"_meta":`+meta+`}`))
	if err != nil {
		return JudgeListen(caps, 0, exchanged(x, probe.Response{}, err), nil)
	}
	wait := min(s.o.Probe.Timeout, listenWait)
	if wait <= 0 {
		wait = listenWait
	}
	deadline := time.Now().Add(wait)
	var ack []byte
	var ackT, respT time.Duration
	answered := false
	for time.Now().Before(deadline) && ack == nil && !answered && s.ctx.Err() == nil {
		r, ok, err := p.Within(s.ctx, 50*time.Millisecond)
		if ok {
			answered, respT = true, r.T
			x = exchanged(x, r, err)
		}
		ack, ackT = firstOf(s.cl.Session.Events(), p.ID)
	}
	_ = s.cl.Session.Notify("notifications/cancelled", []byte(fmt.Sprintf(`{"requestId":%d,"_meta":%s}`, p.ID, meta)))
	if !answered {
		if r, ok, err := p.Within(s.ctx, 200*time.Millisecond); ok {
			answered, respT = true, r.T
			x = exchanged(x, r, err)
			ack, ackT = firstOf(s.cl.Session.Events(), p.ID)
		} else {
			p.Drop()
		}
	}
	if answered && x.Raw != nil && ack != nil && respT > 0 && respT < ackT {
		ack = nil // the response carried the subscription's id before any acknowledgment
	}
	return JudgeListen(caps, p.ID, x, ack)
}

// firstOf is the first notification whose _meta names subscription id.
func firstOf(events []probe.Event, id int64) ([]byte, time.Duration) {
	for _, e := range events {
		if e.Kind != "notification" {
			continue
		}
		sid := gjson.GetBytes(e.Raw, `params._meta.io\.modelcontextprotocol/subscriptionId`)
		if sid.Exists() && (sid.Raw == fmt.Sprint(id) || sid.String() == fmt.Sprint(id)) {
			return e.Raw, e.T
		}
	}
	return nil, 0
}
