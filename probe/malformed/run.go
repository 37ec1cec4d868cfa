package malformed

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/tidwall/gjson"
)

// Channels that can answer a call.
const (
	OK       = "ok"
	IsError  = "is_error"  // a result with isError: true; reaches the model
	RPCError = "rpc_error" // a JSON-RPC error; never reaches the model
	NoAnswer = "no_answer"
	Crashed  = "crashed"  // the server died of it (the health check failed)
	NotSent  = "not_sent" // the tool's baseline got no answer or crashed: its cases were not sent
	// HTTPError: an HTTP error status whose body is no JSON-RPC message
	// (HTTPStatus and Message say what came). An answer all the same: a
	// client sees the refusal at once, not a wait.
	HTTPError = "http_error"
	// Accepted: over Streamable HTTP, 202 Accepted with no body for a
	// frame that is no request, as the transport answers a notification
	// or a response it takes; no JSON-RPC reply follows.
	Accepted = "accepted"
)

// Outcome is what one case got, and the verdict on it.
type Outcome struct {
	Case     string
	Tool     string
	Baseline bool   // the tool's valid call, made before its cases
	Args     []byte // a baseline's arguments
	Channel  string
	Code     int64  // for rpc_error
	RawCode  string // the code as sent, for rpc_error
	Message  string // the error's message or the isError text, shortened; what a crash looked like
	Expected Expectation
	Judgement
	// SDK names an SDK whose known behaviour explains the answer, and
	// how; "" when none is recognised (see sdk.go: a heuristic).
	SDK string
	// HTTPStatus is the status of the HTTP response that carried the
	// answer (over HTTP; 0 over stdio, or when no response came).
	HTTPStatus int
	// notified: how the server answered the POST of a notification case
	// over Streamable HTTP, judged by the transport's 202 rule.
	notified  *transport.NotificationAnswer
	sentAfter int // the last trace frame before the case was sent
	// closedSchema: an unknown property on additionalProperties: false.
	closedSchema bool
	// settled: no answer came before the answer to the ping sent right
	// behind the case, plus probe.SettleGrace (see exchange).
	settled bool
	// sentID is the id the case was sent with ("" for none).
	sentID string
}

// runner sends cases to a server from start, restarting it after a case
// that killed it. Each case is followed by a health check.
type runner struct {
	ctx     context.Context
	start   func() (*dial.Session, error)
	o       probe.Options
	timeout time.Duration
	srv     *dial.Session
	cl      *probe.Client
	sent    int // cases sent so far, for their ids
	// progress hears each case as it starts; done counts the cases
	// played (sent or skipped) of total planned.
	progress    func(name string, done, total int)
	done, total int
	// early is a server started ahead for the case that needs one that
	// has not shaken hands: it boots while the other cases run.
	early *dial.Session
}

// startEarly starts the server the fresh case will use, now, so that
// its start-up overlaps the cases before it.
func (r *runner) startEarly() {
	if s, err := r.start(); err == nil {
		r.early = s
	}
}

// startFresh is the server started ahead, if any, else a new one.
func (r *runner) startFresh() (*dial.Session, error) {
	if s := r.early; s != nil {
		r.early = nil
		return s, nil
	}
	return r.start()
}

func (r *runner) connect() error {
	r.stop()
	next, err := r.start()
	if err != nil {
		return err
	}
	r.srv = next
	err = r.srv.Connect(r.ctx)
	r.cl = r.srv.Client
	if err != nil {
		return r.srv.Explain(err)
	}
	return nil
}

// dropEarly closes the server started ahead if no case took it.
func (r *runner) dropEarly() {
	if r.early != nil {
		r.early.Close()
		r.early = nil
	}
}

func (r *runner) stop() {
	if r.srv != nil {
		r.srv.Close()
		r.srv = nil
	}
}

// play sends each case in turn; skip names cases not to send.
func (r *runner) play(cases []Case, skip func(Case) bool) ([]Outcome, error) {
	var out []Outcome
	for _, c := range cases {
		if r.ctx.Err() != nil {
			break
		}
		if r.progress != nil {
			r.progress(c.Name, r.done, r.total)
		}
		r.done++
		var o Outcome
		switch {
		case skip != nil && skip(c):
			o.Channel = NotSent
		case c.Fresh:
			r.sent++
			o = fresh(r.ctx, r.startFresh, c, r.id(), r.timeout)
		default:
			r.sent++
			meta := ""
			if r.cl.Modern() {
				meta = r.cl.Meta()
			}
			o = send(r.ctx, r.cl.Session, r.srv.Server().HTTP(), c, r.id(), r.timeout, meta)
			if !healthy(r.ctx, r.cl, r.timeout) {
				o.Channel, o.Message = Crashed, "the health check after it failed: "+o.Channel
				r.harvest(out)
				if err := r.connect(); err != nil {
					return out, prefixed(err, fmt.Sprintf("restarting the server after the case %q: ", c.Name))
				}
			}
		}
		o.Case, o.Tool, o.Expected, o.Baseline, o.Args, o.closedSchema = c.Name, c.Tool, c.Expect, c.Baseline, c.Args, c.ClosedSchema
		if !c.NoID {
			o.sentID = r.id()
		}
		out = append(out, o)
	}
	r.harvest(out)
	return out, nil
}

// harvest takes, for each case whose wait was settled by the ping behind
// it, an answer that came later on the session still open (a late_reply
// event): the answer is the server's all the same, and it is what the
// case is judged on, as it was when the case waited the whole timeout.
func (r *runner) harvest(out []Outcome) {
	if r.cl == nil {
		return
	}
	late := map[string][]byte{}
	for _, e := range r.cl.Session.Events() {
		if e.Kind == "late_reply" && e.Raw != nil {
			late[gjson.GetBytes(e.Raw, "id").Raw] = e.Raw
		}
	}
	for i := range out {
		o := &out[i]
		raw, ok := late[o.sentID]
		if !o.settled || o.Channel != NoAnswer || !ok {
			continue
		}
		o.Channel, o.Code, o.RawCode, o.Message = OK, 0, "", ""
		v := gjson.ParseBytes(raw)
		switch {
		case v.Get("error").Exists():
			o.Channel, o.Code, o.RawCode, o.Message = RPCError, v.Get("error.code").Int(), boundRaw(v.Get("error.code").Raw), excerpt(v.Get("error.message").String())
		case v.Get("result.isError").Bool():
			o.Channel, o.Message = IsError, excerpt(v.Get("result.content.0.text").String())
		}
		// No note of its lateness: the output is what the server
		// answered, whatever the machine's load made of the grace.
		o.settled = false
	}
}

func (r *runner) id() string { return fmt.Sprintf(`"mcpprobe-malformed-%d"`, r.sent) }

// prefixed says where a failure happened, keeping its three parts.
func prefixed(err error, prefix string) error {
	var fe *probe.FatalError
	if !errors.As(err, &fe) {
		return fmt.Errorf("%s%w", prefix, err)
	}
	cp := *fe
	cp.What = prefix + fe.What
	return &cp
}

// fresh sends a case to a server that has not shaken hands.
func fresh(ctx context.Context, start func() (*dial.Session, error), c Case, id string, timeout time.Duration) Outcome {
	srv, err := start()
	if err != nil {
		return Outcome{Channel: NoAnswer, Message: err.Error()}
	}
	defer srv.Close()
	return send(ctx, probe.NewSession(srv.Conn()), srv.Server().HTTP(), c, id, timeout, "")
}

// send delivers the frame and reads the channel that answered; h is the
// HTTP connection under s, nil over stdio.
func send(ctx context.Context, s *probe.Session, h *transport.HTTP, c Case, id string, timeout time.Duration, meta string) Outcome {
	o := exchange(ctx, s, h, c, id, timeout, meta)
	if h == nil || h.Mode() != "streamable" {
		return o
	}
	a := lastAnswer(h, o.sentAfter)
	switch {
	case c.Notification:
		o.notified = a
	case a != nil && o.Channel == NoAnswer && a.Accepted():
		// A frame that is no request (no method) taken as a response:
		// the server answered 202, and no reply is owed.
		o.Channel, o.HTTPStatus = Accepted, a.Status
	}
	return o
}

// lastAnswer is how the POST sent after frame seq was answered, if it
// was a notification's.
func lastAnswer(h *transport.HTTP, seq int) *transport.NotificationAnswer {
	as := h.NotificationAnswers()
	for i := len(as) - 1; i >= 0; i-- {
		if as[i].Seq > seq {
			a := as[i]
			return &a
		}
	}
	return nil
}

// exchange sends a case and reads what answered. Over stdio, a case that
// calls no real tool (a frame the server may leave unanswered: no method,
// a batch, invalid JSON, a notification…) is followed at once by a ping
// (in 2026-07-28, which has no ping, a tools/list with meta, the era's
// _meta), and the ping's answer plus probe.SettleGrace settles "no
// answer" in place of the whole timeout: a server that reads in turn has
// answered the case before the ping. Over HTTP each POST has its own
// answer, so the wait is the timeout's; a tool call keeps the timeout too,
// since a real tool may take its time.
func exchange(ctx context.Context, s *probe.Session, h *transport.HTTP, c Case, id string, timeout time.Duration, meta string) Outcome {
	before := len(s.Events())
	waitID := id
	if c.NoID {
		waitID = ""
	}
	sentAfter := -1
	if h != nil {
		if fs := h.Trace().Tail(1); len(fs) > 0 {
			sentAfter = fs[0].Seq
		}
	}
	if h == nil && c.Tool == "" {
		behind := func() (*probe.Pending, error) {
			if meta != "" {
				return s.BeginQuiet(ctx, "tools/list", []byte(`{"_meta":`+meta+`}`))
			}
			return s.BeginQuiet(ctx, "ping", nil)
		}
		resp, settled, err := s.ExchangeSettled(ctx, c.Frame(id), waitID, behind, timeout)
		wait := timeout
		if settled || c.NoID {
			// the grace, or the timeout, is spent already
			wait = 0
		}
		o := classify(s, h, c, before, resp, err, wait)
		o.sentAfter = sentAfter
		o.settled = settled && o.Channel == NoAnswer
		return o
	}
	resp, err := s.Exchange(ctx, c.Frame(id), waitID, timeout)
	o := classify(s, h, c, before, resp, err, timeout)
	o.sentAfter = sentAfter
	return o
}

// classify reads the channel that answered from what the exchange gave.
func classify(s *probe.Session, h *transport.HTTP, c Case, before int, resp probe.Response, err error, timeout time.Duration) Outcome {
	var re *probe.RPCError
	var te *probe.TimeoutError
	var ce *probe.ClosedError
	var he *transport.HTTPError
	switch {
	case c.NoID && err == nil:
		// No id to match: an answer, if any, is a reply to nobody.
		wait := timeout
		if c.Expect.Channel == NoAnswer {
			wait = min(timeout, 500*time.Millisecond)
		}
		if r, ok := orphanReply(s, h, before, wait); ok {
			return r
		}
		return Outcome{Channel: NoAnswer}
	case errors.As(err, &he):
		return httpAnswer(he)
	case err == nil && gjson.GetBytes(resp.Result, "isError").Bool():
		return Outcome{Channel: IsError, Message: excerpt(gjson.GetBytes(resp.Result, "content.0.text").String())}
	case err == nil:
		return Outcome{Channel: OK}
	case errors.As(err, &re):
		return Outcome{Channel: RPCError, Code: re.Code, RawCode: re.RawCode, Message: excerpt(re.Message), HTTPStatus: frameStatus(h, resp.Seq)}
	case errors.As(err, &te):
		// Some servers answer a frame they cannot read with id null.
		if r, ok := orphanReply(s, h, before, 0); ok {
			return r
		}
		return Outcome{Channel: NoAnswer}
	case errors.As(err, &ce):
		return Outcome{Channel: Crashed, Message: "the connection closed"}
	}
	return Outcome{Channel: NoAnswer, Message: err.Error()}
}

// httpAnswer classifies an HTTP error status: by its body when that is a
// JSON-RPC message (an error with id null, as servers answer what they
// cannot parse), else as http_error with what came.
func httpAnswer(he *transport.HTTPError) Outcome {
	if transport.IsJSONRPC(he.Body) {
		v := gjson.ParseBytes(he.Body)
		if e := v.Get("error"); e.Exists() {
			return Outcome{Channel: RPCError, Code: e.Get("code").Int(), RawCode: boundRaw(e.Get("code").Raw), Message: excerpt(e.Get("message").String()), HTTPStatus: he.Status}
		}
		return Outcome{Channel: OK, HTTPStatus: he.Status}
	}
	return Outcome{Channel: HTTPError, HTTPStatus: he.Status,
		Message: probe.DescribeHTTPAnswer(he.Status, he.ContentType, he.Body, int64(len(he.Body)))}
}

// frameStatus is the HTTP status of the response that carried trace
// frame seq; 0 over stdio or when the trace no longer holds it.
func frameStatus(h *transport.HTTP, seq int) int {
	if h == nil {
		return 0
	}
	if fs := h.Trace().FramesFrom(seq); len(fs) > 0 && fs[0].Seq == seq && fs[0].HTTP != nil {
		return fs[0].HTTP.Status
	}
	return 0
}

// orphanReply looks, for up to wait, for an error reply that matched no
// request (id null), which is how a server answers what it cannot parse.
func orphanReply(s *probe.Session, h *transport.HTTP, from int, wait time.Duration) (Outcome, bool) {
	deadline := time.Now().Add(wait)
	for {
		evs := s.Events()
		for _, e := range evs[min(from, len(evs)):] {
			if e.Kind != "unknown_id" {
				continue
			}
			v := gjson.ParseBytes(e.Raw)
			if v.Get("error").Exists() {
				return Outcome{Channel: RPCError, Code: v.Get("error.code").Int(), RawCode: boundRaw(v.Get("error.code").Raw), Message: excerpt(v.Get("error.message").String()), HTTPStatus: frameStatus(h, e.Seq)}, true
			}
			return Outcome{Channel: OK, HTTPStatus: frameStatus(h, e.Seq)}, true
		}
		if time.Now().After(deadline) {
			return Outcome{}, false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// healthy checks the server still answers: ping, or in the modern era
// (which has no ping) tools/list.
func healthy(ctx context.Context, cl *probe.Client, timeout time.Duration) bool {
	var err error
	if cl.Modern() {
		_, err = cl.Request(ctx, "tools/list", "", timeout)
	} else {
		_, err = cl.Ping(ctx, timeout)
	}
	var re *probe.RPCError
	return err == nil || errors.As(err, &re)
}

// boundRaw cuts a code as sent, as the session does.
func boundRaw(raw string) string {
	if len(raw) > 64 {
		return raw[:64]
	}
	return raw
}

func excerpt(s string) string {
	s = strings.TrimSpace(s)
	if len([]rune(s)) > 80 {
		return string([]rune(s)[:80]) + "…"
	}
	return s
}
