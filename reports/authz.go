package reports

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/mcpprobe/mcpprobe/probe/authz"
)

var authzMark = map[string]string{
	authz.Pass: "✓", authz.Fail: "✗", authz.Warn: "⚠", authz.Observed: "·", authz.NotRun: "–",
}

// Authz writes an auth audit: the answer, one row per probe with the
// clause it rests on, then for every row that is not a pass what was
// sent, what came back and why.
func Authz(w io.Writer, st Style, r *authz.Result) {
	if st == Terminal {
		fmt.Fprintf(w, "%s.\n", r.Summary())
	}
	proto := "not negotiated (no baseline session)"
	if r.Protocol != "" {
		proto = r.Protocol
	}
	fmt.Fprintf(w, "auth audit of %s · protocol %s · MUST → fail, SHOULD → warn, host quirk → observed\n\n", plain(st, r.Target), plain(st, proto))
	var rows [][]string
	for _, row := range r.Rows {
		rows = append(rows, []string{cell(st, row.ID), cell(st, row.Check), cell(st, row.Clause.Rev+" · "+row.Clause.Section), string(row.Clause.Level), authzMark[row.Outcome] + " " + row.Outcome})
	}
	Table(w, st, []string{"probe", "check", "clause", "level", "outcome"}, rows)
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
		if st == Markdown {
			lead, ind = "- ", "  "
		}
		fmt.Fprintf(w, "%s%s %s: %s\n", lead, authzMark[row.Outcome], plain(st, row.ID), plain(st, row.Why))
		if row.Clause.URL != "" {
			fmt.Fprintf(w, "%s%s %s (%s)\n", ind, plain(st, string(row.Clause.Level)), plain(st, row.Clause.URL), plain(st, row.Clause.Rev))
		}
		if row.Sent != "" {
			fmt.Fprintf(w, "%ssent: %s\n", ind, plain(st, row.Sent))
		}
		if row.Got != "" {
			fmt.Fprintf(w, "%sgot: %s\n", ind, plain(st, row.Got))
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
	return append(b, '\n')
}
