package check

import (
	"errors"
	"strings"

	"github.com/mcpprobe/mcpprobe/internal/quote"
	"github.com/mcpprobe/mcpprobe/probe"
)

// Verdict is one check's judgement in one era.
type Verdict struct {
	ID      string
	Era     string
	Clause  *Clause // what a pass, fail or warn rests on; nil for n/a
	Outcome string
	Sent    string // what was sent, bounded; raw, escaped where shown
	Got     string // what came back, bounded; raw, escaped where shown
	Why     string
	// Known: a fail listed in the baseline file, with its reason.
	Known  bool
	Reason string
}

// Exchange is one request and what answered it.
type Exchange struct {
	Method string
	Params string // the params members as sent, "" for none
	Raw    []byte // the whole response as received, nil if none
	Result []byte
	Err    *probe.RPCError
	// NoReply says why nothing answered: "timeout" (within --timeout),
	// "closed" (the connection ended), or the error.
	NoReply string
}

// maxShown bounds what a verdict keeps of what was sent and received.
const maxShown = 300

// bound cuts s to maxShown bytes, marking the cut.
func bound(s string) string { return quote.Bound(s, maxShown) }

func (x Exchange) sent() string {
	if x.Params == "" {
		return x.Method
	}
	return bound(x.Method + " {" + x.Params + "}")
}

func (x Exchange) got() string {
	switch {
	case x.Raw != nil:
		return bound(string(x.Raw))
	case x.Err != nil:
		return bound(x.Err.Error())
	case x.NoReply != "":
		return "no reply (" + x.NoReply + ")"
	}
	return ""
}

// exchanged fills x's answer from a request's response and error.
func exchanged(x Exchange, r probe.Response, err error) Exchange {
	x.Raw, x.Result = r.Raw, r.Result
	var re *probe.RPCError
	var te *probe.TimeoutError
	var ce *probe.ClosedError
	switch {
	case err == nil:
	case errors.As(err, &re):
		x.Err = re
	case errors.As(err, &te):
		x.NoReply = "timeout"
	case errors.As(err, &ce):
		x.NoReply = "closed"
	default:
		x.NoReply = strings.TrimSpace(err.Error())
	}
	return x
}

// verdict starts a verdict on x.
func verdict(id, era string, c *Clause, outcome string, x Exchange, why string) Verdict {
	return Verdict{ID: id, Era: era, Clause: c, Outcome: outcome, Sent: x.sent(), Got: x.got(), Why: why}
}

func notApplicable(id, era, why string) Verdict {
	return Verdict{ID: id, Era: era, Outcome: NotApplicable, Why: why}
}

func inconclusive(id, era string, c *Clause, why string) Verdict {
	return Verdict{ID: id, Era: era, Clause: c, Outcome: Inconclusive, Why: why}
}

// noReply judges a request that got no answer: JSON-RPC's MUST reply is
// broken by a server that ended; one that is only slow is a warning, since
// no version sets a deadline.
func noReply(id, era string, x Exchange) Verdict {
	if x.NoReply == "closed" {
		return verdict(id, era, mustReply, Fail, x, "the connection ended instead of a reply")
	}
	return verdict(id, era, mustReply, Warn, x, "no reply within --timeout; no version sets a deadline, so a warning")
}

var mustReply = &Clause{Version: "JSON-RPC 2.0", URL: "https://www.jsonrpc.org/specification#response_object", Keyword: "MUST", Binds: "server",
	Text: "When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications."}
