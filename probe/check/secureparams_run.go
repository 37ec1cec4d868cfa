package check

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/args"
	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/mcpprobe/mcpprobe/probe/secparams"
	"github.com/tidwall/gjson"
)

// tasksExtension is the 2026-07-28 tasks extension's identifier.
const tasksExtension = "io.modelcontextprotocol/tasks"

// secureParams runs the extension's checks in one era. The era's session
// is the client that did not declare the extension (mcpprobe declares
// none); a second connection declares it as a client does: in
// initialize's capabilities (2025-11-25) or in every request's
// clientCapabilities (2026-07-28), which probe.Options.Capabilities
// gives both. Calls go only to tools the consent rule allows.
func secureParams(s *session, era string, caps []byte) []Verdict {
	if !declared(caps, "tools") {
		return secureAll(era, NotApplicable, "the server does not declare tools")
	}
	if !secparams.Declared(caps) {
		return secureAll(era, NotApplicable, "the server does not declare "+secparams.Extension+" in capabilities.extensions")
	}
	plainList := s.cl.Capture.Tools
	if plainList.Error != "" && len(plainList.Items) == 0 {
		return secureAll(era, Inconclusive, "tools/list was not answered: "+bound(plainList.Error))
	}
	plain := plainList.Items
	spec := s.o.pinned(s.cl.Capture.ProtocolVersion)
	spec.Probe.Capabilities = secureCaps(s.o.Probe.Capabilities)
	s.o.say("tools/list declaring " + secparams.Extension)
	ss, err := dial.Open(s.ctx, spec)
	if err != nil {
		return secureAll(era, Inconclusive, "a connection declaring "+secparams.Extension+" could not be opened: "+firstLine(err))
	}
	defer ss.Close()
	neg := ss.Client
	neg.ListTools(s.ctx)
	if neg.Capture.Tools.Error != "" && len(neg.Capture.Tools.Items) == 0 {
		return secureAll(era, Inconclusive, "tools/list declaring the extension was not answered: "+bound(neg.Capture.Tools.Error))
	}
	negotiated := neg.Capture.Tools.Items
	vs := []Verdict{JudgeSecureShape(era, negotiated), JudgeSecureOverlap(era, negotiated), JudgeSecureOmit(era, negotiated, plain)}
	return append(vs, secureCalls(s, era, caps, neg, negotiated, plain)...)
}

// secureCaps declares the extension beside what the run declares.
func secureCaps(run string) string {
	m := map[string]json.RawMessage{}
	if run != "" && json.Unmarshal([]byte(run), &m) != nil {
		m = map[string]json.RawMessage{}
	}
	ext := map[string]json.RawMessage{}
	_ = json.Unmarshal(m["extensions"], &ext)
	ext[secparams.Extension] = json.RawMessage(`{}`)
	m["extensions"], _ = json.Marshal(ext)
	b, _ := json.Marshal(m)
	return string(b)
}

// secureCalls makes the calls: a required-secure tool called without
// the extension, then (declaring it) the same call with secureArguments
// as a control, with a secure name in arguments too, and as a task.
func secureCalls(s *session, era string, caps []byte, neg *probe.Client, negotiated, plain [][]byte) []Verdict {
	ids := []string{IDSecureUnneg, IDSecureCollision, IDSecureNoEcho}
	choices := args.Choose(negotiated, s.o.named(), s.o.NoToolCalls)
	// The era's calls line names these tools too.
	for _, c := range choices {
		if !listed(plain, c.Tool) {
			c.Why += "; listed only to a client declaring " + secparams.Extension
			s.choices = append(s.choices, c)
		}
	}
	if s.o.NoToolCalls {
		return notRunAll(era, ids, NotRun)
	}
	var callable [][]byte
	for i, t := range negotiated {
		if d := secparams.Read(t); choices[i].Call && d.Has && d.Shape == "" && len(d.Overlap) == 0 && len(d.Secure) > 0 {
			callable = append(callable, t)
		}
	}
	if len(callable) == 0 {
		why := "no tool with secure parameters may be called without consent (readOnlyHint true, no destructiveHint, every hint a plain boolean); name one with --call"
		if len(secureTools(negotiated)) == 0 {
			why = "no tool listed to a client declaring the extension has a secureInputSchema"
		}
		return notRunAll(era, ids, why)
	}
	var out []Verdict
	// A tool with required secure parameters, called as a client that
	// does not know the extension calls it.
	unneg := notApplicable(IDSecureUnneg, era, "no tool that may be called has required secure parameters")
	for _, t := range callable {
		if !secparams.Read(t).RequiresSecure() {
			continue
		}
		name := toolName(t)
		s.o.say("tools/call " + name + " without " + secparams.Extension)
		x := s.ask("tools/call", `"name":`+gjson.GetBytes(t, "name").Raw+`,"arguments":`+string(s.o.argsFor(t)))
		unneg = JudgeSecureUnnegotiated(era, name, !listed(plain, name), x)
		break
	}
	out = append(out, unneg)

	t := callable[0]
	for _, c := range callable {
		if secparams.Read(c).RequiresSecure() {
			t = c
			break
		}
	}
	d := secparams.Read(t)
	name := toolName(t)
	model := s.o.argsFor(t)
	secure, _ := secureArgs(t)
	prop := d.Secure[0]
	if len(d.Required) > 0 {
		prop = d.Required[0]
	}
	nameRaw := gjson.GetBytes(t, "name").Raw
	s.o.say("tools/call " + name + " with secureArguments")
	control := s.askOn(neg, "tools/call", `"name":`+nameRaw+`,"arguments":`+string(model)+`,"secureArguments":`+string(secure))
	colliding := withMember(model, prop, gjson.GetBytes(secure, gjson.Escape(prop)).Raw)
	s.o.say("tools/call " + name + " with " + prop + " in arguments")
	x := s.askOn(neg, "tools/call", `"name":`+nameRaw+`,"arguments":`+string(colliding)+`,"secureArguments":`+string(secure))
	out = append(out, JudgeSecureCollision(era, name, prop, control, x))
	return append(out, secureTaskEcho(s, era, caps, neg, callable))
}

// secureTaskEcho creates a task of a secure tool, sending secureArguments,
// and reads it back with tasks/get.
func secureTaskEcho(s *session, era string, caps []byte, neg *probe.Client, callable [][]byte) Verdict {
	var t []byte
	for _, c := range callable {
		if era == Modern || taskSupport(c) {
			t = c
			break
		}
	}
	switch {
	case era == Modern && !secparams.DeclaresExtension(caps, tasksExtension):
		return notApplicable(IDSecureNoEcho, era, "the server does not declare "+tasksExtension)
	case era == Legacy && !declared(caps, "tasks.requests.tools.call"):
		return notApplicable(IDSecureNoEcho, era, "the server does not declare tasks.requests.tools.call")
	case t == nil:
		return notApplicable(IDSecureNoEcho, era, "no tool with secure parameters that may be called has execution.taskSupport optional or required")
	}
	name := toolName(t)
	secure, values := secureArgs(t)
	members := `"name":` + gjson.GetBytes(t, "name").Raw + `,"arguments":` + string(s.o.argsFor(t)) + `,"secureArguments":` + string(secure)
	s.o.say("tools/call " + name + " as a task")
	var create Exchange
	if era == Modern {
		// The tasks extension is declared on this request only: the
		// server decides whether to answer it with a task.
		create = s.askMeta(neg, "tools/call", members, secureCaps(`{"extensions":{"`+tasksExtension+`":{}}}`))
	} else {
		create = s.askOn(neg, "tools/call", members+`,"task":{"ttl":60000}`)
	}
	id := taskID(create)
	if id == "" {
		return JudgeSecureNoEcho(era, name, values, create, Exchange{})
	}
	idRaw, _ := json.Marshal(id)
	var get Exchange
	if era == Modern {
		get = s.askMeta(neg, "tasks/get", `"taskId":`+string(idRaw), secureCaps(`{"extensions":{"`+tasksExtension+`":{}}}`))
	} else {
		get = s.askOn(neg, "tasks/get", `"taskId":`+string(idRaw))
	}
	return JudgeSecureNoEcho(era, name, values, create, get)
}

func taskSupport(t []byte) bool {
	v := gjson.GetBytes(t, "execution.taskSupport").String()
	return v == "optional" || v == "required"
}

func notRunAll(era string, ids []string, why string) []Verdict {
	var out []Verdict
	for _, id := range ids {
		out = append(out, notApplicable(id, era, why))
	}
	return out
}

func listed(tools [][]byte, name string) bool {
	for _, t := range tools {
		if toolName(t) == name {
			return true
		}
	}
	return false
}

// askOn is ask on another connection of the check (the one declaring the
// extension); its exchanges count for the resultType check too.
func (s *session) askOn(cl *probe.Client, method, members string) Exchange {
	x := Exchange{Method: method, Params: members}
	r, err := cl.Request(s.ctx, method, members, s.o.Probe.Timeout)
	x = exchanged(x, r, err)
	s.seen = append(s.seen, x)
	return x
}

// askMeta is askOn with the given client capabilities in _meta in place
// of the connection's (2026-07-28 only).
func (s *session) askMeta(cl *probe.Client, method, members, caps string) Exchange {
	x := Exchange{Method: method, Params: members + `,"_meta":{…"clientCapabilities":` + caps + `…}`}
	params := []byte(`{` + members + `,"_meta":` + cl.MetaWith(caps) + `}`)
	r, err := cl.Session.Call(s.ctx, method, params, s.o.Probe.Timeout)
	x = exchanged(x, r, err)
	s.seen = append(s.seen, x)
	return x
}

// secureArgs are the secure arguments of a tool: the smallest its
// secureInputSchema accepts, with each plain string property (no enum,
// const, pattern, format or length bound) given a value of its own that
// no server would make up, so that an echo of it can be told. values are
// those strings, in key order.
func secureArgs(tool []byte) ([]byte, []string) {
	schema := gjson.GetBytes(tool, "secureInputSchema")
	minimal := args.MinimalArgs([]byte(schema.Raw))
	m := map[string]json.RawMessage{}
	if json.Unmarshal(minimal, &m) != nil {
		return minimal, nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var values []string
	for i, k := range keys {
		p := schema.Get("properties." + gjson.Escape(k))
		if p.Get("type").String() != "string" {
			continue
		}
		plain := true
		for _, c := range []string{"enum", "const", "pattern", "format", "maxLength", "minLength"} {
			if p.Get(c).Exists() {
				plain = false
			}
		}
		if !plain {
			continue
		}
		v := fmt.Sprintf("mcpprobe-secure-canary-%d", i+1)
		m[k], _ = json.Marshal(v)
		values = append(values, v)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return minimal, nil
	}
	return b, values
}

// withMember is a JSON object (raw) with one more member, name: value
// (raw; null when empty).
func withMember(obj []byte, name, value string) []byte {
	if value == "" {
		value = "null"
	}
	m := map[string]json.RawMessage{}
	_ = json.Unmarshal(obj, &m)
	m[name] = json.RawMessage(value)
	b, err := json.Marshal(m)
	if err != nil {
		return obj
	}
	return b
}
