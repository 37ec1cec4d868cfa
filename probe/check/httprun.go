package check

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/tidwall/gjson"
)

// transportVerdicts runs the Streamable HTTP checks of one era, on
// connections of their own, or says why they do not apply: a stdio
// target has no HTTP, and legacy HTTP+SSE (2024-11-05) has other rules.
func transportVerdicts(ctx context.Context, o Options, era, transport, protocol string, caps []byte, legacyServed string) []Verdict {
	switch {
	case o.Target.Kind != "http" && o.Target.Kind != "sse":
		return transportNA(era, "a stdio target: this is a rule of the Streamable HTTP transport")
	case transport != "streamable":
		return transportNA(era, "the server speaks the legacy HTTP+SSE transport (2024-11-05), not Streamable HTTP, whose rule this is")
	}
	w := newWire(ctx, o.Target.URL, o.Target.Headers, o.Probe.Timeout, o.Launch.Insecure, o.Launch.UserAgent)
	defer w.close()
	if era == Modern {
		o.say("Streamable HTTP (modern)")
		return modernTransport(w, loopbackURL(o.Target.URL), declared(caps, "tools"), legacyServed)
	}
	o.say("Streamable HTTP (legacy)")
	return legacyTransport(w, protocol, loopbackURL(o.Target.URL))
}

// httpMode is the HTTP transport the session found: "streamable" or
// "sse"; "" for stdio.
func httpMode(ss *dial.Session) string {
	if h := ss.Server().HTTP(); h != nil {
		return h.Mode()
	}
	return ""
}

// withTransport puts the transport's verdicts after the era's protocol
// checks, before the checks the era does not judge (grade ends with them).
func withTransport(er *EraResult, tv []Verdict) {
	n := len(er.Verdicts) - len(notIn(er.Era))
	tail := append([]Verdict(nil), er.Verdicts[n:]...)
	er.Verdicts = append(append(er.Verdicts[:n], tv...), tail...)
}

// transportNA is every transport check of the era, not applicable.
func transportNA(era, why string) []Verdict {
	var out []Verdict
	for _, c := range HTTPChecks() {
		if c.Judges(era) {
			out = append(out, notApplicable(c.ID, era, why))
		}
	}
	return out
}

// loopbackURL reports whether u's host is this machine.
func loopbackURL(u string) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	h := strings.ToLower(p.Hostname())
	return h == "localhost" || h == "::1" || strings.HasPrefix(h, "127.")
}

// legacyTransport opens a 2025-era session of its own, asking for the
// version the probe's session negotiated, and bends one header per
// request; DELETE comes last, since it ends the session.
func legacyTransport(w *wire, protocol string, loopback bool) []Verdict {
	if protocol == "" {
		protocol = v1
	}
	init := w.initializeAs(protocol)
	if !init.answered() || init.Status >= 300 || !gjson.GetBytes(init.Msg, "result").IsObject() {
		why := "initialize on a connection of the transport checks' own got no result: " + init.got()
		var out []Verdict
		for _, c := range HTTPChecks() {
			if c.Judges(Legacy) {
				out = append(out, inconclusive(c.ID, Legacy, c.Clauses[Legacy], why))
			}
		}
		return out
	}
	hs := w.legacyHeaders()
	notif := w.post("notifications/initialized", rpc(0, "notifications/initialized", ""), hs)
	ping := func(bent ...hdr) hx { return w.post("ping", rpc(w.id(), "ping", ""), with(hs, bent...), bent...) }
	plain := ping()
	acc := ping(hdr{"Accept", "application/json"})
	accSSE := ping(hdr{"Accept", "text/event-stream"})
	ver := ping(hdr{"MCP-Protocol-Version", badVersion})
	orig := ping(hdr{"Origin", foreignOrigin})
	var noSess, unknown hx
	if w.session != "" {
		noSess = ping(hdr{"Mcp-Session-Id", ""})
		unknown = ping(hdr{"Mcp-Session-Id", unknownSession})
	}
	getHs := with(hs, hdr{"Accept", "text/event-stream"}, hdr{"Content-Type", ""})
	get := w.do(http.MethodGet, "", nil, getHs)
	posts := []hx{init, plain, acc, accSSE, ver, orig}
	last := resumeFrom(posts)
	var res hx
	if last != "" {
		res = w.doFor(http.MethodGet, "", nil, with(getHs, hdr{"Last-Event-ID", last}), resumeWait)
		res.Sent = shown(hdr{"Last-Event-ID", "<the first event id of the first stream>"})
	}
	var del, after hx
	if w.session != "" {
		del = w.do(http.MethodDelete, "", nil, with(hs, hdr{"Content-Type", ""}, hdr{"Accept", ""}))
		if del.Status >= 200 && del.Status < 300 {
			after = ping()
		}
	}
	return []Verdict{
		JudgeNotification(Legacy, notif),
		JudgeContentType(Legacy, plain),
		JudgeAccept(Legacy, acc, accSSE),
		JudgeVersionHeader(w.version, ver),
		JudgeSessionCharset(init),
		JudgeSessionMissing(w.session, noSess),
		JudgeUnknownSession(w.session, unknown),
		JudgeSessionDelete(w.session, del, after),
		JudgeOrigin(Legacy, loopback, orig),
		JudgeGet(Legacy, "", get),
		JudgePriming(w.version, posts),
		JudgeResume(last, res),
	}
}

// modernTransport sends server/discover as a 2026-07-28 client does, then
// bends one header at a time.
func modernTransport(w *wire, loopback, tools bool, legacyServed string) []Verdict {
	discover := func(bent ...hdr) hx {
		return w.post("server/discover", rpc(w.id(), "server/discover", modernMeta), with(modernHeaders("server/discover"), bent...), bent...)
	}
	plain := discover()
	notif := w.post("notifications/cancelled", rpc(0, "notifications/cancelled", `"requestId":999999,`+modernMeta), modernHeaders("notifications/cancelled"))
	acc := discover(hdr{"Accept", "application/json"})
	accSSE := discover(hdr{"Accept", "text/event-stream"})
	orig := discover(hdr{"Origin", foreignOrigin})
	mismatch := []hx{discover(hdr{"Mcp-Method", "tools/list"})}
	if tools {
		// A tools/call of a tool no server has, its Mcp-Name another
		// name: only where tools is declared, so that the method exists.
		call := rpc(w.id(), "tools/call", `"name":"`+mismatchTool+`","arguments":{},`+modernMeta)
		bent := hdr{"Mcp-Name", mismatchName}
		mismatch = append(mismatch, w.post("tools/call", call, with(modernHeaders("tools/call"), bent), bent))
	}
	get := w.do(http.MethodGet, "", nil, []hdr{{"Accept", "text/event-stream"}, {"MCP-Protocol-Version", v2}})
	return []Verdict{
		JudgeNotification(Modern, notif),
		JudgeContentType(Modern, plain),
		JudgeAccept(Modern, acc, accSSE),
		JudgeOrigin(Modern, loopback, orig),
		JudgeGet(Modern, legacyServed, get),
		JudgeHeaderMismatch(mismatch...),
	}
}
