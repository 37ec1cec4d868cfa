package probe

import (
	"fmt"
	"math"
	"strconv"

	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/mcpspec"
	"github.com/tidwall/gjson"
)

// CodeJudgement is what the negotiated version's text says of an error
// code a server sent. A code with a standard meaning has Severity "".
type CodeJudgement struct {
	Severity findings.Severity // "", info, warning or error
	Why      string            // what the text says of this code
	URL      string            // the clause
	Keyword  string            // MUST, MUST NOT, SHOULD NOT, or "" (no keyword)
	Text     string            // the clause's sentence, short
}

// Codes JSON-RPC 2.0 defines (https://www.jsonrpc.org/specification#error_object).
var jsonRPCCodes = map[int64]string{
	-32700: "Parse error", -32600: "Invalid Request", -32601: "Method not found",
	-32602: "Invalid params", -32603: "Internal error",
}

// SpecVersion is the published spec text a negotiated version is judged
// by: the latest one mcpprobe knows that is not after it (versions are
// dates), or the oldest.
func SpecVersion(v string) string {
	out := LegacyVersions[len(LegacyVersions)-1]
	for _, k := range append(append([]string(nil), ModernVersions...), LegacyVersions...) {
		if v >= k && k > out {
			out = k
		}
	}
	return out
}

// errorsURL is where a version says that error codes MUST be integers.
func errorsURL(version string) string {
	v := SpecVersion(version)
	switch {
	case v == "2024-11-05":
		return mcpspec.URL(v, "basic/messages#responses")
	case v < "2025-11-25":
		return mcpspec.URL(v, "basic/index#responses")
	}
	return mcpspec.URL(v, "basic/index#error-responses")
}

var codesURL26 = mcpspec.URL("2026-07-28", "basic/index#error-codes")

// JudgeErrorCode judges the raw JSON of an error object's "code" member
// ("" when the member is absent) against the negotiated version. The
// severities follow the text and nothing stricter: JSON-RPC leaves every
// code outside -32768…-32000 to the application, so code 0 is allowed and
// is worth info at most; only a code that is not an integer breaks a MUST
// in every version, and 2026-07-28 adds MUST NOTs of its own.
func JudgeErrorCode(raw, version string) CodeJudgement {
	code, ok := integerCode(raw)
	if !ok {
		what := "no code"
		if raw != "" {
			what = "code " + shorten(raw, 40)
		}
		return CodeJudgement{Severity: findings.Error, Keyword: "MUST", URL: errorsURL(version), Text: "Error codes MUST be integers.",
			Why: what + `: "Error codes MUST be integers" (JSON-RPC: "This MUST be an integer")`}
	}
	if _, std := jsonRPCCodes[code]; std {
		return CodeJudgement{}
	}
	modern := IsModern(version)
	switch {
	case modern && (code == -32002 || code == -32042):
		return CodeJudgement{Severity: findings.Error, Keyword: "MUST NOT", URL: codesURL26, Text: "Implementations of this protocol version MUST NOT emit these codes: -32002 … -32042",
			Why: fmt.Sprintf("code %d: 2026-07-28 says implementations of this version MUST NOT emit -32002 or -32042", code)}
	case modern && code >= -32099 && code <= -32020:
		if code >= -32022 {
			return CodeJudgement{} // HeaderMismatch, MissingRequiredClientCapability, UnsupportedProtocolVersion
		}
		return CodeJudgement{Severity: findings.Error, Keyword: "MUST NOT", URL: codesURL26,
			Text: "Implementations MUST NOT emit any code from this sub-range that is not defined by this specification",
			Why:  fmt.Sprintf("code %d: 2026-07-28 reserves -32020…-32099; implementations MUST NOT emit a code there that the specification does not define", code)}
	case modern && code >= -32019 && code <= -32000:
		return CodeJudgement{Severity: findings.Info, Keyword: "SHOULD NOT", URL: codesURL26, Text: "new implementations SHOULD NOT use codes from this sub-range at all",
			Why: fmt.Sprintf("code %d: 2026-07-28 keeps -32000…-32019 for legacy use, and new implementations SHOULD NOT use it; mcpprobe cannot tell a new implementation from an old one", code)}
	case code >= -32099 && code <= -32000:
		return CodeJudgement{} // JSON-RPC: implementation-defined server errors
	case code >= -32768 && code <= -32000:
		return CodeJudgement{Severity: findings.Warning, URL: "https://www.jsonrpc.org/specification#error_object",
			Text: "Any code within this range, but not defined explicitly below is reserved for future use.",
			Why:  fmt.Sprintf("code %d: JSON-RPC reserves -32768…-32000, and a code there that it does not define is \"reserved for future use\"", code)}
	}
	return CodeJudgement{Severity: findings.Info, URL: "https://www.jsonrpc.org/specification#error_object",
		Text: "The remainder of the space is available for application defined errors.",
		Why:  fmt.Sprintf("code %d: allowed (outside -32768…-32000 \"the remainder of the space is available for application defined errors\"), but it has no standard meaning, so a client cannot classify it", code)}
}

// integerCode reads a code the way JSON Schema reads "integer": a JSON
// number with no fractional part (1.0 is one), within int64.
func integerCode(raw string) (int64, bool) {
	v := gjson.Parse(raw)
	if raw == "" || v.Type != gjson.Number {
		return 0, false
	}
	if n, err := strconv.ParseInt(v.Raw, 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(v.Raw, 64)
	if err != nil || f != math.Trunc(f) || math.IsInf(f, 0) {
		return 0, false
	}
	if math.Abs(f) > 1<<62 {
		return 1 << 62, true // an integer no int64 holds: application-defined all the same
	}
	return int64(f), true
}

// codeFindings judges every error code the session saw.
func (p *prober) codeFindings() {
	var places *Places
	for _, c := range p.s.ErrorCodes() {
		j := JudgeErrorCode(c.Raw, p.c.ProtocolVersion)
		if j.Severity == "" {
			continue
		}
		if places == nil {
			pl := NewPlaces(p.c.Trace)
			places = &pl
		}
		p.c.Findings = append(p.c.Findings, findings.NewAt(j.Severity, findings.NonstandardErrorCode,
			"an error reply (%s, ×%d, %q) has %s (%s)", places.Of(c.Seq), c.N, c.Message, j.Why, j.URL))
	}
}

func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// IsIntegerCode reports whether an error's code, as sent, is an integer.
func IsIntegerCode(raw string) bool {
	_, ok := integerCode(raw)
	return ok
}
