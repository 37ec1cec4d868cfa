package faults

// Policy is how a client treats a line on stdout that is not a JSON-RPC
// message. Clients differ, and a fault's outcome depends on it.
type Policy string

const (
	// Strict ends the session on such a line, as the official Go SDK does.
	Strict Policy = "strict"
	// Lenient skips it, as mark3labs/mcp-go does.
	Lenient Policy = "lenient"
	// TS reports an error and goes on, as the TypeScript SDK does; text
	// glued to a message corrupts that message.
	TS Policy = "ts"
	// Spec skips it and records a protocol error: stdout must carry only
	// MCP messages, so the server is at fault, not the session.
	Spec Policy = "spec"
)

// Policies are all the client policies, for --client all.
var Policies = []Policy{Spec, Strict, Lenient, TS}

// ParsePolicy reads a --client value.
func ParsePolicy(s string) (Policy, bool) {
	for _, p := range Policies {
		if string(p) == s {
			return p, true
		}
	}
	return "", false
}

// onBadLine says what a client of this policy does with an unparseable
// line: end the session, or skip it (reported or not).
func (p Policy) onBadLine() (endSession, reported bool) {
	switch p {
	case Strict:
		return true, true
	case Lenient:
		return false, false
	default:
		return false, true
	}
}
