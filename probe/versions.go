package probe

// Protocol versions this client speaks, newest first. Modern versions carry
// their version in every request's _meta; legacy ones shake hands with
// initialize.
var (
	ModernVersions = []string{"2026-07-28"}
	LegacyVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
)

// IsModern reports whether v is a stateless (2026-07-28 or later) version.
// Versions are dates, so they compare as strings.
func IsModern(v string) bool { return v >= "2026-07-28" }

// KnownVersion reports whether mcpprobe knows version v.
func KnownVersion(v string) bool {
	for _, k := range append(append([]string(nil), ModernVersions...), LegacyVersions...) {
		if k == v {
			return true
		}
	}
	return false
}

// Meta keys of the modern era.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
)
