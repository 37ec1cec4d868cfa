package malformed

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpprobe/mcpprobe/faults"
	"github.com/mcpprobe/mcpprobe/probe"
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

// Result is one case's outcome.
type Result struct {
	Case     string
	Tool     string
	Channel  string
	Code     int64 // for rpc_error
	Message  string
	Expected Expectation
	OK       bool
}

// Run sends each case to a server from start, restarting it after a case
// that killed it. Each case is followed by a health check.
func Run(ctx context.Context, start faults.Starter, o probe.Options, cases []Case, timeout time.Duration) ([]Result, error) {
	var srv faults.Server
	var cl *probe.Client
	connect := func() error {
		if srv.Stop != nil {
			srv.Stop()
			srv = faults.Server{}
		}
		next, err := start()
		if err != nil {
			return err
		}
		srv = next
		cl, err = probe.Connect(ctx, srv.Conn, o)
		return err
	}
	if err := connect(); err != nil {
		return nil, err
	}
	defer func() {
		if srv.Stop != nil {
			srv.Stop()
		}
	}()
	var out []Result
	for i, c := range cases {
		if ctx.Err() != nil {
			break
		}
		id := fmt.Sprintf(`"mcpprobe-malformed-%d"`, i+1)
		var r Result
		if c.Fresh {
			r = fresh(ctx, start, c, id, timeout)
		} else {
			r = send(ctx, cl.Session, c, id, timeout)
			if !healthy(ctx, cl, timeout) {
				r.Channel, r.Message = Crashed, "the health check after it failed: "+r.Channel
				if err := connect(); err != nil {
					return out, fmt.Errorf("restarting after %q: %w", c.Name, err)
				}
			}
		}
		r.Case, r.Tool, r.Expected = c.Name, c.Tool, c.Expect
		r.OK = meets(r, c.Expect)
		out = append(out, r)
	}
	return out, nil
}

// fresh sends a case to a server that has not shaken hands.
func fresh(ctx context.Context, start faults.Starter, c Case, id string, timeout time.Duration) Result {
	srv, err := start()
	if err != nil {
		return Result{Channel: NoAnswer, Message: err.Error()}
	}
	defer srv.Stop()
	return send(ctx, probe.NewSession(srv.Conn), c, id, timeout)
}

// send delivers the frame and reads the channel that answered.
func send(ctx context.Context, s *probe.Session, c Case, id string, timeout time.Duration) Result {
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
		return Result{Channel: NoAnswer}
	case err == nil && gjson.GetBytes(resp.Result, "isError").Bool():
		return Result{Channel: IsError, Message: excerpt(gjson.GetBytes(resp.Result, "content.0.text").String())}
	case err == nil:
		return Result{Channel: OK}
	case errors.As(err, &re):
		return Result{Channel: RPCError, Code: re.Code, Message: excerpt(re.Message)}
	case errors.As(err, &te):
		// Some servers answer a frame they cannot read with id null.
		if r, ok := orphanReply(s, before, 0); ok {
			return r
		}
		return Result{Channel: NoAnswer}
	case errors.As(err, &ce):
		return Result{Channel: Crashed, Message: "the connection closed"}
	}
	return Result{Channel: NoAnswer, Message: err.Error()}
}

// orphanReply looks, for up to wait, for an error reply that matched no
// request (id null), which is how a server answers what it cannot parse.
func orphanReply(s *probe.Session, from int, wait time.Duration) (Result, bool) {
	deadline := time.Now().Add(wait)
	for {
		evs := s.Events()
		for _, e := range evs[min(from, len(evs)):] {
			if e.Kind != "unknown_id" {
				continue
			}
			v := gjson.ParseBytes(e.Raw)
			if v.Get("error").Exists() {
				return Result{Channel: RPCError, Code: v.Get("error.code").Int(), Message: excerpt(v.Get("error.message").String())}, true
			}
			return Result{Channel: OK}, true
		}
		if time.Now().After(deadline) {
			return Result{}, false
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
func meets(r Result, e Expectation) bool {
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
