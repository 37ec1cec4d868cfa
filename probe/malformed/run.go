package malformed

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/tidwall/gjson"
)

// Channels that can answer a call.
const (
	OK       = "ok"
	IsError  = "is_error"  // a result with isError: true; reaches the model
	RPCError = "rpc_error" // a JSON-RPC error; never reaches the model
	NoAnswer = "no_answer"
	Crashed  = "crashed" // the server died of it (the health check failed)
)

// Outcome is what one case got.
type Outcome struct {
	Case     string
	Tool     string
	Channel  string
	Code     int64 // for rpc_error
	Message  string
	Expected Expectation
	OK       bool
}

// play sends each case to a server from start, restarting it after a
// case that killed it. Each case is followed by a health check.
func play(ctx context.Context, start func() (*launch.Server, error), o probe.Options, cases []Case, timeout time.Duration) ([]Outcome, error) {
	var srv *launch.Server
	var cl *probe.Client
	connect := func() error {
		if srv != nil {
			srv.Stop()
			srv = nil
		}
		next, err := start()
		if err != nil {
			return err
		}
		srv = next
		cl, err = probe.Connect(ctx, srv.Conn(), o)
		if err != nil {
			return srv.Explain(err)
		}
		return nil
	}
	defer func() {
		if srv != nil {
			srv.Stop()
		}
	}()
	if err := connect(); err != nil {
		return nil, err
	}
	var out []Outcome
	for i, c := range cases {
		if ctx.Err() != nil {
			break
		}
		id := fmt.Sprintf(`"mcpprobe-malformed-%d"`, i+1)
		var r Outcome
		if c.Fresh {
			r = fresh(ctx, start, c, id, timeout)
		} else {
			r = send(ctx, cl.Session, c, id, timeout)
			if !healthy(ctx, cl, timeout) {
				r.Channel, r.Message = Crashed, "the health check after it failed: "+r.Channel
				if err := connect(); err != nil {
					return out, prefixed(err, fmt.Sprintf("restarting the server after the case %q: ", c.Name))
				}
			}
		}
		r.Case, r.Tool, r.Expected = c.Name, c.Tool, c.Expect
		r.OK = meets(r, c.Expect)
		out = append(out, r)
	}
	return out, nil
}

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
func fresh(ctx context.Context, start func() (*launch.Server, error), c Case, id string, timeout time.Duration) Outcome {
	srv, err := start()
	if err != nil {
		return Outcome{Channel: NoAnswer, Message: err.Error()}
	}
	defer srv.Stop()
	return send(ctx, probe.NewSession(srv.Conn()), c, id, timeout)
}

// send delivers the frame and reads the channel that answered.
func send(ctx context.Context, s *probe.Session, c Case, id string, timeout time.Duration) Outcome {
	before := len(s.Events())
	waitID := id
	if c.NoID {
		waitID = ""
	}
	resp, err := s.Exchange(ctx, c.Frame(id), waitID, timeout)
	var re *probe.RPCError
	var te *probe.TimeoutError
	var ce *probe.ClosedError
	switch {
	case c.NoID && err == nil:
		// No id to match: an answer, if any, is a reply to nobody.
		wait := timeout
		if c.Expect.Channel == NoAnswer {
			wait = min(timeout, 500*time.Millisecond)
		}
		if r, ok := orphanReply(s, before, wait); ok {
			return r
		}
		return Outcome{Channel: NoAnswer}
	case err == nil && gjson.GetBytes(resp.Result, "isError").Bool():
		return Outcome{Channel: IsError, Message: excerpt(gjson.GetBytes(resp.Result, "content.0.text").String())}
	case err == nil:
		return Outcome{Channel: OK}
	case errors.As(err, &re):
		return Outcome{Channel: RPCError, Code: re.Code, Message: excerpt(re.Message)}
	case errors.As(err, &te):
		// Some servers answer a frame they cannot read with id null.
		if r, ok := orphanReply(s, before, 0); ok {
			return r
		}
		return Outcome{Channel: NoAnswer}
	case errors.As(err, &ce):
		return Outcome{Channel: Crashed, Message: "the connection closed"}
	}
	return Outcome{Channel: NoAnswer, Message: err.Error()}
}

// orphanReply looks, for up to wait, for an error reply that matched no
// request (id null), which is how a server answers what it cannot parse.
func orphanReply(s *probe.Session, from int, wait time.Duration) (Outcome, bool) {
	deadline := time.Now().Add(wait)
	for {
		evs := s.Events()
		for _, e := range evs[min(from, len(evs)):] {
			if e.Kind != "unknown_id" {
				continue
			}
			v := gjson.ParseBytes(e.Raw)
			if v.Get("error").Exists() {
				return Outcome{Channel: RPCError, Code: v.Get("error.code").Int(), Message: excerpt(v.Get("error.message").String())}, true
			}
			return Outcome{Channel: OK}, true
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

// meets compares an outcome with what the spec asks for.
func meets(r Outcome, e Expectation) bool {
	switch e.Channel {
	case "answered":
		return r.Channel == OK || r.Channel == IsError || r.Channel == RPCError
	case RPCError:
		return r.Channel == RPCError && (e.Code == 0 || e.Code == r.Code)
	}
	return r.Channel == e.Channel
}

func excerpt(s string) string {
	s = strings.TrimSpace(s)
	if len([]rune(s)) > 80 {
		return string([]rune(s)[:80]) + "…"
	}
	return s
}
