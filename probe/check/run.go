package check

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/args"
	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/mcpprobe/mcpprobe/probe/malformed"
	"github.com/tidwall/gjson"
)

// Options say which server to check: the embedded Spec (its Protocol is
// set per era), the eras to grade, and whether to send malformed calls.
type Options struct {
	dial.Spec
	// Eras to grade, of Legacy and Modern; none means both.
	Eras []string
	// SkipMalformed leaves malformed's cases out (they restart the server
	// for some cases, and send a 1 MB argument).
	SkipMalformed bool
	// Calls name the tools to call (with --call), whatever their hints:
	// the user's consent. None: the tools args.Consented allows.
	Calls []args.Call
	// NoToolCalls calls no tool at all: the checks that need a call are
	// not run, and malformed sends only cases that call no real tool.
	NoToolCalls bool
	// Progress, if set, hears what is being checked as it starts.
	Progress func(what string)
}

// EraResult is one era's column: whether the server serves it, and each
// check's verdict in it.
type EraResult struct {
	Era      string
	Protocol string // negotiated; "" when the era is not served
	Served   bool
	Why      string // when not served: how that shows
	Verdicts []Verdict
	// Tools says of each listed tool whether this era's checks (and its
	// malformed cases) may call it, and why: the consent rule's decision.
	Tools []args.Choice
	// early: a server started ahead for malformed's session (startMalformed)
	early         *dial.Session
	earlyProtocol string
}

// Result is a check run.
type Result struct {
	Target    string
	Transport string // stdio or http
	Eras      []EraResult
	// Baseline is what the baseline file said, once Apply has run.
	Baseline *Applied
}

func (o Options) wants(era string) bool { return len(o.Eras) == 0 || slices.Contains(o.Eras, era) }

// named are the tools --call names, in order.
func (o Options) named() []string {
	var out []string
	for _, c := range o.Calls {
		out = append(out, c.Tool)
	}
	return out
}

// argsFor are the arguments of a tool's call: those given with --args,
// else built from its schema.
func (o Options) argsFor(raw []byte) []byte {
	name := gjson.GetBytes(raw, "name").String()
	for _, c := range o.Calls {
		if c.Tool == name && c.Args != nil {
			return c.Args
		}
	}
	return args.ForTool(raw)
}

func (o Options) say(what string) {
	if o.Progress != nil {
		o.Progress(what)
	}
}

func (o Options) pinned(protocol string) dial.Spec {
	s := o.Spec.Afresh()
	s.Probe.Protocol = protocol
	return s
}

// Run grades each era asked for, each on a connection of its own (see
// connect), then sends malformed's cases pinned to that era. A server
// that cannot be probed in any era asked for is a *probe.FatalError.
func Run(ctx context.Context, o Options) (*Result, error) {
	res := &Result{Target: o.Target.Display(), Transport: Stdio}
	if o.Target.Kind == "http" || o.Target.Kind == "sse" {
		res.Transport = HTTP
	}
	sessions, notServed, err := connect(ctx, o)
	defer func() {
		for _, ss := range sessions {
			ss.Close()
		}
	}()
	if err != nil {
		return nil, err
	}
	// Whether the legacy era is served, for the modern GET check: ""
	// when it is not, else why the modern GET is not judged.
	legacyServed := ""
	switch {
	case sessions[Legacy] != nil:
		legacyServed = "the server serves 2025-11-25 too, whose GET stream the legacy column judges"
	case !o.wants(Legacy):
		legacyServed = "--era modern: whether the server also serves 2025-11-25, whose GET stream is that era's, was not asked"
	}
	cardsFound := fetchCards(ctx, o)
	for _, era := range Eras {
		if !o.wants(era) {
			continue
		}
		ss := sessions[era]
		if ss == nil {
			res.Eras = append(res.Eras, unserved(era, notServed[era]))
			continue
		}
		er := grade(ctx, o, era, ss.Client)
		if era == Legacy && notServed[rejectedKey] != "" {
			rejectedVersion(&er, notServed[rejectedKey])
		}
		withTransport(&er, transportVerdicts(ctx, o, era, httpMode(ss), er.Protocol, ss.Client.Capture.Capabilities, legacyServed))
		withTransport(&er, cardVerdicts(o, era, ss, cardsFound))
		listed := wholeList(ss.Client)
		ss.Close()
		delete(sessions, era)
		early := er.early
		er.early = nil
		if early != nil && (ctx.Err() != nil || listed == nil || er.earlyProtocol != malformedProtocol(era, er.Protocol)) {
			early.Close()
			early = nil
		}
		if !o.SkipMalformed && ctx.Err() == nil {
			o.say("malformed calls (" + era + ")")
			er.Verdicts = append(er.Verdicts, malformedVerdicts(ctx, o, era, er.Protocol, listed, early)...)
		}
		res.Eras = append(res.Eras, er)
	}
	return res, nil
}

// connect opens a session for each era asked for that the server serves,
// and says for the others how it showed that it does not. It fails only
// when no era could be reached at all.
//
// Which eras are served is asked as a dual-era client asks (server/discover,
// then initialize), on a connection of its own that is then let go: a
// dual-era client may send initialize while server/discover is still
// pending (probe's awaitDiscover), and a server that took both would
// answer the rest of that session in either era, so no era is graded on
// it. Each era served gets a fresh connection pinned to its version.
func connect(ctx context.Context, o Options) (map[string]*dial.Session, map[string]string, error) {
	sessions, notServed := map[string]*dial.Session{}, map[string]string{}
	modern := false
	if o.wants(Modern) {
		o.say("server/discover")
		ss, err := dial.Open(ctx, o.pinned("auto"))
		if err != nil {
			return sessions, notServed, err
		}
		modern = ss.Client.Modern()
		if !modern {
			notServed[Modern] = "server/discover: " + ss.Client.Capture.Discover
		}
		ss.Close()
	}
	var firstErr error
	open := func(era, version string) {
		ss, err := dial.Open(ctx, o.pinned(version))
		if err != nil {
			firstErr = err
			notServed[era] = version + ": " + firstLine(err)
			return
		}
		sessions[era] = ss
	}
	if modern {
		o.say("server/discover (" + probe.ModernVersions[0] + ")")
		open(Modern, probe.ModernVersions[0])
	}
	if o.wants(Legacy) {
		o.say("initialize (" + probe.LegacyVersions[0] + ")")
		open(Legacy, probe.LegacyVersions[0])
		// A server that refuses the latest version with an error may
		// take an older one: then it serves the era, and broke the
		// negotiation's MUST (grade says so).
		var re *probe.RPCError
		rejected := ""
		if errors.As(firstErr, &re) {
			rejected = fmt.Sprintf("initialize asking for %s was answered with error %d (%s)", probe.LegacyVersions[0], re.Code, bound(re.Message))
		}
		for _, v := range probe.LegacyVersions[1:] {
			if sessions[Legacy] != nil || !errors.As(firstErr, &re) {
				break
			}
			o.say("initialize (" + v + ")")
			if open(Legacy, v); sessions[Legacy] != nil {
				firstErr = nil
				delete(notServed, Legacy)
				notServed[rejectedKey] = rejected
			}
		}
	}
	if len(sessions) == 0 && firstErr != nil {
		return sessions, notServed, firstErr
	}
	return sessions, notServed, nil
}

// rejectedKey keeps, among connect's notes, how the latest legacy version
// was refused when an older one was then accepted.
const rejectedKey = "legacy-rejected"

// unserved is the column of an era the server does not serve: no
// verdict, and how that showed. A legacy-only or a modern-only server is
// no failure of the era it does not speak.
func unserved(era, why string) EraResult {
	return EraResult{Era: era, Why: why}
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// session makes a check's requests on one connection, keeping each
// exchange for the modern era's resultType check.
type session struct {
	ctx  context.Context
	cl   *probe.Client
	o    Options
	seen []Exchange
	// choices: which listed tools may be called (args.Choose)
	choices []args.Choice
	// early is the server malformed's session will use, started ahead
	// (startMalformed); earlyProtocol the version it is pinned to.
	early         *dial.Session
	earlyProtocol string
}

// malformedProtocol is the version malformed's cases are pinned to in era.
func malformedProtocol(era, negotiated string) string {
	if era == Modern {
		return probe.ModernVersions[0]
	}
	return negotiated
}

// startMalformed starts, over stdio, the server malformed's cases will
// go to, so that it boots while the era's last checks run (a Node server
// takes seconds to start). It is started after the connections the era's
// checks open, in the order malformed would have started it; over HTTP,
// where the transport checks open connections after the era, it is not.
func (s *session) startMalformed(era string) {
	if s.o.SkipMalformed || s.early != nil || s.o.Target.Kind == "http" || s.o.Target.Kind == "sse" {
		return
	}
	p := malformedProtocol(era, s.cl.Capture.ProtocolVersion)
	if ss, err := dial.Start(s.ctx, s.o.pinned(p)); err == nil {
		s.early, s.earlyProtocol = ss, p
	}
}

// callable are the raw definitions of the tools the session may call, in
// the server's order.
func (s *session) callable() [][]byte {
	ok := map[string]bool{}
	for _, c := range s.choices {
		if c.Call {
			ok[c.Tool] = true
		}
	}
	var out [][]byte
	for _, raw := range s.cl.Capture.Tools.Items {
		if ok[gjson.GetBytes(raw, "name").String()] {
			out = append(out, raw)
		}
	}
	return out
}

func (s *session) ask(method, members string) Exchange {
	x := Exchange{Method: method, Params: members}
	r, err := s.cl.Request(s.ctx, method, members, s.o.Probe.Timeout)
	x = exchanged(x, r, err)
	s.seen = append(s.seen, x)
	return x
}

// grade runs the protocol's checks of one era on a connected client.
func grade(ctx context.Context, o Options, era string, cl *probe.Client) EraResult {
	c := cl.Capture
	er := EraResult{Era: era, Protocol: c.ProtocolVersion, Served: true}
	s := &session{ctx: ctx, cl: cl, o: o}
	hs := Exchange{}
	if c.Handshake != nil {
		hs = Exchange{Method: c.Handshake.Method, Raw: c.Handshake.Raw, Result: c.Handshake.Result}
	}
	var vs []Verdict
	if era == Modern {
		hs.Params = `"_meta":{…}`
		vs = append(vs, JudgeDiscover(hs)...)
		s.seen = append(s.seen, hs)
	} else {
		hs.Params = `"protocolVersion":"` + c.RequestedVersion + `",…`
		vs = append(vs, JudgeInitialize(c.RequestedVersion, hs)...)
	}
	caps := c.Capabilities
	if era == Legacy {
		o.say("ping")
		vs = append(vs, JudgePing(s.ask("ping", "")))
	}
	lists := map[string]Exchange{}
	for _, l := range []list{toolsList, promptsList, resourcesList} {
		if !declared(caps, l.capability) {
			vs = append(vs, JudgeList(era, l, caps, Exchange{}))
			continue
		}
		o.say(l.method)
		lists[l.capability] = s.ask(l.method, "")
		vs = append(vs, JudgeList(era, l, caps, lists[l.capability]))
	}
	vs = append(vs, inputSchemas(ctx, era, cl, caps, lists["tools"]))
	if declared(caps, "tools") {
		er.Tools = args.Choose(cl.Capture.Tools.Items, o.named(), o.NoToolCalls)
	}
	s.choices = er.Tools
	vs = append(vs, results(s, era, caps, lists)...)
	if era == Legacy {
		x := Exchange{}
		if declared(caps, "logging") {
			o.say("logging/setLevel")
			x = s.ask("logging/setLevel", `"level":"info"`)
		}
		vs = append(vs, JudgeSetLevel(caps, x))
	}
	vs = append(vs, complete(s, era, caps, lists))
	if era == Legacy {
		vs = append(vs, subscribe(s, caps, lists["resources"])...)
	}
	vs = append(vs, s.modernChecks(era, caps, lists, hs)...)
	vs = append(vs, secureParams(s, era, caps)...)
	vs = append(vs, s.events(era, caps)...)
	vs = append(vs, s.skills(era, caps)...)
	er.Tools = s.choices // with the tools only a client declaring an extension is listed
	vs = append(vs, s.serverSent(era, caps)...)
	if era == Modern {
		vs = append(vs, JudgeResultTypes(s.seen))
		vs = append(vs, JudgeInputRequiredPlaces(s.seen))
	}
	er.Verdicts = append(vs, notIn(era)...)
	er.early, er.earlyProtocol = s.early, s.earlyProtocol
	return er
}

// rejectedVersion fails the version negotiation of a server that answered
// initialize for the latest version with an error and then accepted an
// older one: it MUST answer a version it supports instead.
func rejectedVersion(er *EraResult, how string) {
	for i := range er.Verdicts {
		v := &er.Verdicts[i]
		if v.ID == IDVersionNegotiated {
			v.Outcome = Fail
			v.Why = fmt.Sprintf("%s; asking for %s worked: a server that does not support the version asked for MUST answer another it supports, not an error", how, er.Protocol)
		}
	}
}

// notIn is the verdict of each registry check the era does not judge.
func notIn(era string) []Verdict {
	var out []Verdict
	for _, c := range Registry() {
		if why, ok := c.NotIn[era]; ok && !c.Judges(era) {
			out = append(out, notApplicable(c.ID, era, why))
		}
	}
	return out
}

// inputSchemas judges every tool of the whole list (all pages), when the
// first page answered.
func inputSchemas(ctx context.Context, era string, cl *probe.Client, caps []byte, first Exchange) Verdict {
	listed := first.Err == nil && first.NoReply == "" && gjson.GetBytes(first.Result, "tools").IsArray()
	if !declared(caps, "tools") || !listed {
		return JudgeInputSchemas(era, caps, listed, nil)
	}
	cl.ListTools(ctx)
	l := cl.Capture.Tools
	if l.Error != "" && len(l.Items) == 0 {
		return JudgeInputSchemas(era, caps, false, nil)
	}
	return JudgeInputSchemas(era, caps, true, l.Items)
}

// complete asks completion/complete of the first prompt argument, or
// else the first resource template variable, the server lists.
func complete(s *session, era string, caps []byte, lists map[string]Exchange) Verdict {
	if !declared(caps, "completions") {
		return JudgeComplete(era, caps, "", Exchange{})
	}
	ref, members := "", ""
	for _, p := range gjson.GetBytes(lists["prompts"].Result, "prompts").Array() {
		if a := p.Get("arguments.0.name"); a.Type == gjson.String {
			ref = fmt.Sprintf("prompt %s, argument %s", p.Get("name").String(), a.String())
			members = `"ref":{"type":"ref/prompt","name":` + p.Get("name").Raw + `},"argument":{"name":` + a.Raw + `,"value":""}`
			break
		}
	}
	if ref == "" && declared(caps, "resources") {
		s.o.say("resources/templates/list")
		t := s.ask("resources/templates/list", "")
		for _, tp := range gjson.GetBytes(t.Result, "resourceTemplates").Array() {
			if v := templateVar(tp.Get("uriTemplate").String()); v != "" {
				ref = fmt.Sprintf("template %s, variable %s", tp.Get("uriTemplate").String(), v)
				members = `"ref":{"type":"ref/resource","uri":` + tp.Get("uriTemplate").Raw + `},"argument":{"name":"` + v + `","value":""}`
				break
			}
		}
	}
	if ref == "" {
		return JudgeComplete(era, caps, "", Exchange{})
	}
	s.o.say("completion/complete")
	return JudgeComplete(era, caps, ref, s.ask("completion/complete", members))
}

// templateVar is the first simple variable of an RFC 6570 template
// ("{name}", "{+path}"), "" if none.
func templateVar(t string) string {
	_, rest, ok := strings.Cut(t, "{")
	if !ok {
		return ""
	}
	v, _, ok := strings.Cut(rest, "}")
	if !ok {
		return ""
	}
	v = strings.TrimLeft(v, "+#./;?&")
	v, _, _ = strings.Cut(v, ",")
	v, _, _ = strings.Cut(v, ":")
	v = strings.TrimSuffix(v, "*")
	for _, r := range v {
		if !(r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '%') {
			return ""
		}
	}
	return v
}

// subscribe subscribes to the first listed resource, then unsubscribes.
func subscribe(s *session, caps []byte, resources Exchange) []Verdict {
	uri := gjson.GetBytes(resources.Result, "resources.0.uri")
	if !declared(caps, "resources.subscribe") || uri.Type != gjson.String {
		return []Verdict{JudgeSubscribe(IDSubscribe, caps, "", Exchange{}), JudgeSubscribe(IDUnsubscribe, caps, "", Exchange{})}
	}
	s.o.say("resources/subscribe")
	sub := s.ask("resources/subscribe", `"uri":`+uri.Raw)
	unsub := s.ask("resources/unsubscribe", `"uri":`+uri.Raw)
	return []Verdict{JudgeSubscribe(IDSubscribe, caps, uri.String(), sub), JudgeSubscribe(IDUnsubscribe, caps, uri.String(), unsub)}
}

// malformedVerdicts runs malformed pinned to the era's version and takes
// its verdicts as they are: malformed judges them with its own clauses.
func malformedVerdicts(ctx context.Context, o Options, era, protocol string, listed [][]byte, started *dial.Session) []Verdict {
	protocol = malformedProtocol(era, protocol)
	mo := malformed.Options{Spec: o.pinned(protocol), NoToolCalls: o.NoToolCalls, Listed: listed, Started: started}
	for _, c := range o.Calls {
		mo.Tools = append(mo.Tools, c.Tool)
		if c.Args != nil {
			if mo.Args == nil {
				mo.Args = map[string][]byte{}
			}
			mo.Args[c.Tool] = c.Args
		}
	}
	r, err := malformed.Run(ctx, mo)
	if err != nil {
		return []Verdict{inconclusive("malformed.run", era, nil, "the malformed calls could not be made: "+firstLine(err))}
	}
	return FromMalformed(era, r)
}

// wholeList is the era's whole tools list when the session got it
// whole (inputSchemas asked for every page), for malformed, which then
// starts no server only to list them; nil when it did not.
func wholeList(cl *probe.Client) [][]byte {
	l := cl.Capture.Tools
	if l.Error != "" || len(l.Items) == 0 || !declared(cl.Capture.Capabilities, "tools") {
		return nil
	}
	return l.Items
}

// FromMalformed turns malformed's cases into verdicts, one per case sent
// (baselines are preconditions, not verdicts), under the id of the case's
// kind.
func FromMalformed(era string, r *malformed.Result) []Verdict {
	var out []Verdict
	for _, c := range r.Cases {
		if c.Baseline || c.Channel == malformed.NotSent {
			continue
		}
		sent := c.Case
		if c.Tool != "" {
			sent += " · tool " + c.Tool
		}
		got := c.Answer()
		if c.Message != "" {
			got += fmt.Sprintf(" (%q)", c.Message)
		}
		clause := c.Clause
		if clause == nil {
			clause = c.Expected.Clause
		}
		out = append(out, Verdict{ID: MalformedID(c.Case), Era: era, Clause: clause, Outcome: c.Verdict,
			Sent: bound(sent), Got: bound(got), Why: c.Why})
	}
	return out
}

// MalformedID is the check id of a malformed case: its name without the
// property it names, as a slug ("wrong type (limit)" → malformed.wrong-type).
func MalformedID(name string) string {
	base, _, _ := strings.Cut(name, " (")
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(base) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return "malformed." + strings.TrimSuffix(b.String(), "-")
}
