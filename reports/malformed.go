package reports

import (
	"io"
	"strconv"

	"github.com/mcpprobe/mcpprobe/probe/malformed"
)

// MalformedTable writes one row per case.
func MalformedTable(w io.Writer, st Style, rs []malformed.Result, version string) {
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

// MalformedJSON renders the cases (fields in the README).
func MalformedJSON(rs []malformed.Result, version string) []byte {
	var cases [][]byte
	for _, r := range rs {
		o := &Object{}
		o.Set("case", r.Case).Set("tool", nullIfEmpty(r.Tool)).Set("channel", r.Channel)
		o.Set("code", nsOrNull(r.Code, r.Channel == malformed.RPCError)).Set("message", nullIfEmpty(r.Message))
		o.Set("expected", r.Expected.String()).Set("why", r.Expected.Why).Set("ok", r.OK)
		cases = append(cases, o.Bytes())
	}
	return append((&Object{}).Set("protocol_version", version).Raw("cases", RawArray(cases)).Bytes(), '\n')
}
