package reports

import (
	"fmt"
	"io"
	"strconv"

	"github.com/mcpprobe/mcpprobe/probe/malformed"
)

// Malformed writes a malformed run: one row per case, and how many were
// answered as the spec asks.
func Malformed(w io.Writer, st Style, r *malformed.Result) {
	fmt.Fprintf(w, "malformed calls · protocol %s · an is_error result reaches the model, a JSON-RPC error never does\n\n", Escape(r.Protocol))
	MalformedTable(w, st, r.Cases, r.Protocol)
	fmt.Fprintf(w, "\n%d of %d cases answered as the spec (%s) asks.\n", r.Met(), len(r.Cases), Escape(r.Protocol))
}

// MalformedTable writes one row per case.
func MalformedTable(w io.Writer, st Style, rs []malformed.Outcome, version string) {
	var rows [][]string
	for _, r := range rs {
		code := "—"
		if r.Channel == malformed.RPCError {
			code = strconv.FormatInt(r.Code, 10)
		}
		tool := "—"
		if r.Tool != "" {
			tool = code0(st, r.Tool)
		}
		mark := "✓"
		if !r.OK {
			mark = "✗"
		}
		rows = append(rows, []string{Cell(r.Case), tool, r.Channel, code, r.Expected.String() + " " + mark})
	}
	Table(w, st, []string{"case", "tool", "channel", "code", "spec " + Cell(version) + " expects"}, rows)
}

// MalformedJSON renders a malformed run's section of the envelope (fields
// in the README; the protocol version the expectations follow is the
// envelope's).
func MalformedJSON(r *malformed.Result) []byte {
	cases := make([][]byte, 0, len(r.Cases))
	for _, c := range r.Cases {
		o := &Object{}
		o.Set("case", c.Case).Set("tool", nullIfEmpty(c.Tool)).Set("channel", c.Channel)
		o.Set("code", nsOrNull(c.Code, c.Channel == malformed.RPCError)).Set("message", nullIfEmpty(c.Message))
		o.Set("expected", c.Expected.String()).Set("why", c.Expected.Why).Set("ok", c.OK)
		cases = append(cases, o.Bytes())
	}
	return (&Object{}).Set("met", r.Met()).Raw("cases", RawArray(cases)).Bytes()
}
