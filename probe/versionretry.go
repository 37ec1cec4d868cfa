package probe

import (
	"errors"

	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/tidwall/gjson"
)

// clauseVersionRetry is what a retry after -32022 follows.
const clauseVersionRetry = "2026-07-28 basic/versioning, Protocol Version Negotiation: the client SHOULD select a mutually supported version from the supported list and retry the request, or surface an error to the user if no compatible version exists"

// retryVersion decides, for a request of a 2026-07-28 connection that err
// answered, whether to send it again: a -32022 whose supported list
// names a modern version mcpprobe speaks is retried once per connection
// with it (the connection's version becomes it), as the clause says; a
// list that names none, or a second -32022, is a warning and the error
// stands. The era is the connection's: a legacy version in the list is
// not a reason to start a second handshake on it.
func (p *prober) retryVersion(method string, err error) bool {
	var re *RPCError
	if p.c.Era != "modern" || !errors.As(err, &re) || re.Code != CodeUnsupportedProtocolVersion {
		return false
	}
	supported := gjson.GetBytes(re.Data, "supported")
	list := excerpt([]byte(supported.Raw), 120)
	if list == "" {
		list = "none"
	}
	next := ""
	if supported.IsArray() { // the schema's string[]: nothing else is read as a list
		next = newestModern(supported)
	}
	var f findings.Finding
	retry := false
	switch {
	case next == "":
		f = findings.NewAt(findings.Warning, findings.VersionRetried,
			"%s got -32022 (unsupported protocol version %s) after the handshake, its supported list (%s) naming no 2026-07-28-era version mcpprobe speaks: not retried, the error stands (%s)", method, p.c.ProtocolVersion, list, clauseVersionRetry)
	case p.versionRetried:
		f = findings.NewAt(findings.Warning, findings.VersionRetried,
			"%s got -32022 (unsupported protocol version %s; supported %s) after the connection's one retry: not retried again, the error stands (%s)", method, p.c.ProtocolVersion, list, clauseVersionRetry)
	default:
		f = findings.New(findings.VersionRetried, "%s got -32022 (unsupported protocol version %s; supported %s) after the handshake: retried once with %s (%s)", method, p.c.ProtocolVersion, list, next, clauseVersionRetry)
		p.versionRetried, p.c.ProtocolVersion, retry = true, next, true
	}
	if !p.quiet {
		p.c.Findings = findings.Add(p.c.Findings, f)
	}
	return retry
}

// RetryVersion is retryVersion for a request a command sends itself
// (call, read, prompt): true when it should be sent again, its params
// built anew for the connection's version.
func (cl *Client) RetryVersion(method string, err error) bool { return cl.p.retryVersion(method, err) }
