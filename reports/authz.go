package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/authz"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
	"github.com/mcpprobe/mcpprobe/transport"
)

var authzMark = map[string]string{
	authz.Pass: "✓", authz.Fail: "✗", authz.Warn: "⚠", authz.Observed: "·", authz.NotRun: "–",
}

// Authz writes an auth audit: the answer, one row per probe with the
// clause it rests on, then for every row that is not a pass what was
// sent, what came back and why.
func Authz(w io.Writer, st terminal.Style, r *authz.Result) {
	if st == terminal.Terminal {
		fmt.Fprintf(w, "%s.\n", r.Summary())
	}
	proto := "not negotiated (no baseline session)"
	if r.Protocol != "" {
		proto = r.Protocol
	}
	fmt.Fprintf(w, "auth audit of %s · protocol %s · MUST → fail, SHOULD → warn, host quirk → observed\n\n", terminal.Plain(st, r.Target), terminal.Plain(st, proto))
	var rows [][]string
	for _, row := range r.Rows {
		rows = append(rows, []string{terminal.StyledCell(st, row.ID), terminal.StyledCell(st, row.Check), terminal.StyledCell(st, row.Clause.Version+" · "+row.Clause.Section), row.Clause.Keyword, authzMark[row.Outcome] + " " + row.Outcome})
	}
	terminal.Table(w, st, []string{"probe", "check", "clause", "level", "outcome"}, rows)
	fmt.Fprintf(w, "\n%s.\n", r.Summary())
	first := true
	for _, row := range r.Rows {
		if row.Outcome == authz.Pass {
			continue
		}
		if first {
			fmt.Fprintf(w, "\nWhy, with what was sent and what came back:\n\n")
			first = false
		}
		lead, ind := "", "    "
		if st == terminal.Markdown {
			lead, ind = "- ", "  "
		}
		fmt.Fprintf(w, "%s%s %s: %s\n", lead, authzMark[row.Outcome], terminal.Plain(st, row.ID), terminal.Plain(st, row.Why))
		if row.Clause.URL != "" {
			fmt.Fprintf(w, "%s%s %s (%s)\n", ind, terminal.Plain(st, row.Clause.Keyword), terminal.Plain(st, row.Clause.URL), terminal.Plain(st, row.Clause.Version))
		}
		if row.Sent != "" {
			fmt.Fprintf(w, "%ssent: %s\n", ind, terminal.Plain(st, row.Sent))
		}
		if row.Got != "" {
			fmt.Fprintf(w, "%sgot: %s\n", ind, terminal.Plain(st, row.Got))
		}
	}
}

// AuthzJSON is the auth command's --json section: rows and exchanges as
// the audit keeps them.
func AuthzJSON(r *authz.Result) []byte {
	b, err := json.Marshal(r)
	if err != nil {
		return []byte("null")
	}
	// A C1 or bidi control the server sent stays in the string, as a
	// \u escape a terminal does not act on.
	b, _ = transport.EscapeInvisible(b)
	return b
}

// AuthzTraceLine is one line of auth's --trace: an HTTP exchange of the
// audit as it happened (the request's headers but Authorization, which
// names the credential sent, its body, and the answer's status, headers
// and body, bounded), with "dir":"http" first as in every trace.
func AuthzTraceLine(ex authz.Exchange) []byte {
	b, err := json.Marshal(struct {
		Dir string `json:"dir"`
		authz.Exchange
	}{"http", ex})
	if err != nil {
		return []byte("{\"dir\":\"http\"}\n")
	}
	b, _ = transport.EscapeInvisible(b) // as every trace line: C1 and bidi controls \u-escaped
	return append(b, '\n')
}

// AuthzSection writes the report's Authorization section: for a
// protected endpoint a compact table of the audit's rows (probe, check,
// clause, level, outcome) and a line per row that is not a pass, with
// why; otherwise the line that says it is not protected. Nothing in it
// depends on when it ran: no session id, no token, no time.
func AuthzSection(w io.Writer, r *authz.Result) {
	if !r.Protected() {
		status, why := r.Unprotected()
		if status >= 200 && status < 300 {
			fmt.Fprintf(w, "Not protected: `POST initialize` without a token was answered %d, not 401: authorization is optional, and this endpoint serves without it.\n", status)
			return
		}
		fmt.Fprintf(w, "Not audited past its first probe (A1): %s.\n", terminal.MDMessage(why))
		return
	}
	fmt.Fprintf(w, "The endpoint answers 401 without a token; audited from outside (`mcpprobe auth` shows what was sent and what came back). MUST → fail, SHOULD → warn, a host's reported quirk → observed. %s.\n\n", r.Summary())
	var rows [][]string
	var notRun []string
	for _, row := range r.Rows {
		rows = append(rows, []string{terminal.MD(row.ID), terminal.MD(row.Check), terminal.MD(row.Clause.Version + " · " + row.Clause.Section), row.Clause.Keyword, authzMark[row.Outcome] + " " + row.Outcome})
		if row.Outcome == authz.NotRun {
			notRun = append(notRun, row.ID)
		}
	}
	terminal.Table(w, terminal.Markdown, []string{"probe", "check", "clause", "level", "outcome"}, rows)
	fmt.Fprintln(w)
	listed := false
	for _, row := range r.Rows {
		if row.Outcome == authz.Pass || row.Outcome == authz.NotRun {
			continue
		}
		listed = true
		fmt.Fprintf(w, "- %s %s: %s\n", authzMark[row.Outcome], terminal.MD(row.ID), terminal.MDMessage(row.Why))
	}
	if listed {
		fmt.Fprintln(w)
	}
	if len(notRun) > 0 {
		fmt.Fprintf(w, "Not run: %s (`mcpprobe auth` says what each needs).\n", terminal.MD(strings.Join(notRun, ", ")))
	}
}

// CheckAuthJSON is check's --json section with the audit (check --auth)
// as its "auth" member; without one, the conformance section alone.
func CheckAuthJSON(conformance []byte, a *authz.Result) []byte {
	b := bytes.TrimSpace(conformance)
	if a == nil || len(b) < 2 || b[len(b)-1] != '}' {
		return conformance
	}
	out := append(append([]byte(nil), b[:len(b)-1]...), `,"auth":`...)
	return append(append(out, AuthzJSON(a)...), '}')
}
