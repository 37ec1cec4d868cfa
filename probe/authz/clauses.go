package authz

import "github.com/mcpprobe/mcpprobe/probe/mcpspec"

// Clause is the text a verdict rests on (the judges' one citation type):
// which document (Version: "2025-11-25", "2026-07-28", "RFC 9728", …),
// which section, and its keyword. The keyword (a Level) decides what a
// miss is: MUST a fail, SHOULD a warning, Info (a host's quirk, what the
// spec leaves open) an observation, never a fail.
type Clause = mcpspec.Clause

// Level is a clause's keyword as the probe weighs it.
type Level = string

// clause is one of the audit's citations.
func clause(rev, section, url string, level Level) Clause {
	return Clause{Version: rev, Section: section, URL: url, Keyword: level}
}

const (
	Must   Level = "MUST"
	Should Level = "SHOULD"
	Info   Level = "info"
	// NoKeyword is a clause that states what holds without a keyword:
	// a miss is a warning, as in malformed.
	NoKeyword Level = "no keyword"
)

const (
	spec1125 = "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization"
	spec0728 = "https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization"
	spec0618 = "https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization"
)

// The clauses, each read in the spec or RFC text it names (the spec's
// 2025-11-25 single page, its 2026-07-28 pages, RFC 9728, 8414, 6750,
// 9110). Where 2026-07-28 kept a 2025-11-25 clause word for word, the
// row cites 2025-11-25 and says "+".
var (
	// index "Error Handling": 401 for "Authorization required or token
	// invalid"; 400 for "Malformed authorization request".
	clauseErrorHandling = clause("2025-11-25+", "Error Handling", spec1125+"#error-handling", Must)
	// "Token Handling": "Invalid or expired tokens MUST receive a HTTP 401
	// response"; "MUST validate that access tokens were issued
	// specifically for them as the intended audience".
	clauseTokenHandling = clause("2025-11-25+", "Token Handling", spec1125+"#token-handling", Must)
	// RFC 9110 §15.5.2: "The server generating a 401 response MUST send a
	// WWW-Authenticate header field … containing at least one challenge".
	clause401Challenge = clause("RFC 9110", "§15.5.2 401 Unauthorized", "https://www.rfc-editor.org/rfc/rfc9110#section-15.5.2", Must)
	// 2025-11-25 "Protected Resource Metadata Discovery Requirements":
	// MUST implement one of the header's resource_metadata or a
	// well-known URI (2025-06-18 made the header alone a MUST).
	clausePRMDiscovery = clause("2025-11-25+", "Protected Resource Metadata Discovery Requirements", spec1125+"#protected-resource-metadata-discovery-requirements", Must)
	// 2025-06-18 "Authorization Server Location": "MCP servers MUST use
	// the HTTP header WWW-Authenticate when returning a 401 … to indicate
	// the location of the resource server metadata URL".
	clauseHeader0618 = clause("2025-06-18", "Authorization Server Location", spec0618+"#authorization-server-location", Must)
	// "Authorization Server Location": the PRM document "MUST include the
	// authorization_servers field containing at least one authorization
	// server".
	clauseASLocation = clause("2025-11-25+", "Authorization Server Location", spec1125+"#authorization-server-location", Must)
	// RFC 9728 §3.3: resource MUST be identical to the resource identifier
	// the well-known string was inserted into, or, for a URL from
	// WWW-Authenticate, to the URL the client made its request to.
	clauseResource = clause("RFC 9728", "§3.3 Protected Resource Metadata Validation", "https://www.rfc-editor.org/rfc/rfc9728#section-3.3", Must)
	// RFC 9728 §5.1 and §3: the header's URL and the well-known one are
	// two roads to the same document; the RFC does not say they must be
	// one, so a difference is a warning on a clause without a keyword.
	clauseSameDocument = clause("RFC 9728", "§5.1 WWW-Authenticate Response", "https://www.rfc-editor.org/rfc/rfc9728#section-5.1", NoKeyword)
	// index "Scope Selection Strategy" (2026-07-28; discovery section in
	// 2025-11-25): MCP servers SHOULD include a scope parameter.
	clauseScope = clause("2025-11-25+", "Protected Resource Metadata Discovery Requirements (scope)", spec1125+"#protected-resource-metadata-discovery-requirements", Should)
	// Overview item 5: "MCP authorization servers MUST provide at least
	// one of" RFC 8414 metadata or OIDC Discovery; "Authorization Server
	// Metadata Discovery" gives the order clients MUST try.
	clauseASDiscovery = clause("2025-11-25+", "Authorization Server Metadata Discovery", spec1125+"#authorization-server-metadata-discovery", Must)
	// RFC 8414 §3.3 (and 2026-07-28 authorization-server-discovery, which
	// says it outright): issuer MUST be identical to the issuer the
	// well-known URL was built from, else the metadata MUST NOT be used.
	clauseIssuer = clause("RFC 8414", "§3.3 Authorization Server Metadata Validation", "https://www.rfc-editor.org/rfc/rfc8414#section-3.3", Must)
	// "Authorization Code Protection": without code_challenge_methods_supported
	// "MCP clients MUST refuse to proceed"; S256 when technically capable.
	clausePKCE = clause("2025-11-25+", "Authorization Code Protection", spec1125+"#authorization-code-protection", Must)
	// Overview item 2 and "Client ID Metadata Documents": AS SHOULD
	// support CIMD; DCR is MAY (deprecated in 2026-07-28).
	clauseRegistration = clause("2025-11-25+", "Client ID Metadata Documents (Discovery)", spec1125+"#client-id-metadata-documents", Should)
	// "Communication Security": "All authorization server endpoints MUST
	// be served over HTTPS."
	clauseHTTPS = clause("2025-11-25+", "Communication Security", spec1125+"#communication-security", Must)
	// RFC 6750 §3: a request with a token that failed authentication
	// SHOULD carry the error attribute (invalid_token).
	clauseBearerError = clause("RFC 6750", "§3 The WWW-Authenticate Response Header Field", "https://www.rfc-editor.org/rfc/rfc6750#section-3", Should)
	// "Token Requirements": "Access tokens MUST NOT be included in the URI
	// query string": a client's MUST NOT, which binds no server, so a
	// server that accepts one is observed, not judged.
	clauseQueryToken = clause("2025-11-25+", "Token Requirements (client MUST NOT)", spec1125+"#token-requirements", Info)
	// security-considerations "Access Token Privilege Restriction": "MCP
	// servers MUST validate access tokens before processing the request".
	clauseEveryRequest = clause("2025-11-25+", "Access Token Privilege Restriction", spec1125+"#access-token-privilege-restriction", Must)
	// transports "Security Warning" (2025-11-25), streamable-http
	// "Security & Endpoint" (2026-07-28): "If the Origin header is present
	// and invalid, servers MUST respond with HTTP 403 Forbidden."
	clauseOrigin = clause("2025-11-25+", "Streamable HTTP: Security Warning", "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning", Must)
	// 2026-07-28 index "Refresh Tokens": "MCP Servers (Protected
	// Resources) SHOULD NOT include offline_access in WWW-Authenticate
	// scope or Protected Resource Metadata scopes_supported".
	clauseOfflineAccess = clause("2026-07-28", "Refresh Tokens", spec0728+"#refresh-tokens", Should)
	// index "Runtime Insufficient Scope Errors": the server SHOULD answer
	// 403 with a Bearer challenge carrying error="insufficient_scope",
	// scope and resource_metadata.
	clauseStepUp = clause("2025-11-25+", "Runtime Insufficient Scope Errors", spec1125+"#runtime-insufficient-scope-errors", Should)
	// 2026-07-28 "Authorization Response Validation" (RFC 9207).
	clauseIss = clause("2026-07-28", "Authorization Response Validation", spec0728+"#authorization-response-validation", Should)
	// "Communication Security": "All redirect URIs MUST be either
	// localhost or use HTTPS."
	clauseRedirectHTTPS = clause("2025-11-25+", "Communication Security (redirect URIs)", spec1125+"#communication-security", Must)
	// security-considerations "Access Token Privilege Restriction":
	// MUST NOT pass through the token; not provable from outside.
	clausePassthrough = clause("2025-11-25+", "Access Token Privilege Restriction", spec1125+"#access-token-privilege-restriction", Info)
	// security-considerations "Token Audience Binding and Validation":
	// RFC 8707 binds tokens to their audience "when the Authorization
	// Server supports the capability": an authorization server that
	// ignores resource breaks no keyword, but leaves the resource
	// server's audience check (A17) with nothing to be tested on.
	clauseAudienceBinding = clause("2025-11-25+", "Token Audience Binding and Validation (RFC 8707 optional for the authorization server)", spec1125+"#token-audience-binding-and-validation", Info)
	clauseDPoP            = clause("extension", "DPoP (RFC 9449)", "https://www.rfc-editor.org/rfc/rfc9449", Info)
	clauseHosts           = clause("hosts", "discovery order per host", "", Info)
)
