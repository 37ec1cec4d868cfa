package mcpspec

import "fmt"

// Clause is the text a verdict rests on: which document (a revision of
// the MCP spec, "JSON-RPC 2.0", "RFC 9728", …), which section, the RFC 2119
// keyword that weighs a miss, and whom the sentence binds. It is the one
// citation type of every judge (issue 41: malformed, check, the client's
// Streamable HTTP clauses and the OAuth audit). The JSON names are the
// audit's --json output, the one place a Clause is encoded whole (the
// other reports write their own fields); Binds and Text, which the audit
// leaves empty, are omitted when empty so that output stays as it was.
type Clause struct {
	Version string `json:"rev"`     // "2025-11-25", "2025-11-25+", "JSON-RPC 2.0", "RFC 9728"
	Section string `json:"section"` // the section's title, where a report names it
	URL     string `json:"url"`
	// Keyword is the RFC 2119 keyword of the sentence: MUST, MUST NOT,
	// SHOULD, SHOULD NOT, MAY, or "" where the text only describes (a
	// list, an example, a lower-case "should"). The audit also uses
	// "info" (a host's quirk, what the spec leaves open) and "no keyword".
	Keyword string `json:"level"`
	// Binds is "server", or "client" where the sentence restricts only
	// the client: what a server does then is implementation-defined.
	Binds string `json:"binds,omitempty"`
	Text  string `json:"text,omitempty"` // the sentence, quoted short
}

func (c Clause) String() string {
	return fmt.Sprintf("%s %s (%s)", c.Version, c.Weight(), c.URL)
}

// Weight is the keyword as a reader weighs it: "MUST", "no keyword",
// "client SHOULD NOT", "binds the client".
func (c Clause) Weight() string {
	switch {
	case c.Binds == "client" && c.Keyword == "":
		return "binds the client"
	case c.Binds == "client":
		return "client " + c.Keyword
	case c.Keyword == "":
		return "no keyword"
	}
	return c.Keyword
}
