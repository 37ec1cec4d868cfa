package probe

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/findings"
)

// A -32022 after the handshake: retried once per connection with a
// modern version of its list (info, the clause named); a list naming
// none, or a second one, is a warning and no retry; any other error, or
// a legacy connection, is left alone.
func TestRetryVersion(t *testing.T) {
	unsupported := func(data string) error {
		return &RPCError{Code: CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version", Data: []byte(data)}
	}
	for _, tc := range []struct {
		name    string
		era     string
		errs    []error
		retries []bool
		sev     []findings.Severity
	}{
		{"retried once", "modern", []error{unsupported(`{"supported":["2026-07-28"],"requested":"2026-07-28"}`)}, []bool{true}, []findings.Severity{findings.Info}},
		{"a second is not", "modern", []error{unsupported(`{"supported":["2026-07-28"]}`), unsupported(`{"supported":["2026-07-28"]}`)}, []bool{true, false}, []findings.Severity{findings.Info, findings.Warning}},
		{"legacy only", "modern", []error{unsupported(`{"supported":["2025-11-25"]}`)}, []bool{false}, []findings.Severity{findings.Warning}},
		{"no data", "modern", []error{unsupported(``)}, []bool{false}, []findings.Severity{findings.Warning}},
		{"hostile data", "modern", []error{unsupported(`{"supported":"2026-07-28"}`), unsupported(`{"supported":[{"a":1}]}`)}, []bool{false, false}, []findings.Severity{findings.Warning, findings.Warning}},
		{"another error", "modern", []error{&RPCError{Code: -32601, Message: "nope"}, errors.New("closed")}, []bool{false, false}, nil},
		{"legacy connection", "legacy", []error{unsupported(`{"supported":["2026-07-28"]}`)}, []bool{false}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &prober{c: &Capture{Era: tc.era, ProtocolVersion: "2026-07-28"}}
			for i, err := range tc.errs {
				if got := p.retryVersion("tools/list", err); got != tc.retries[i] {
					t.Errorf("error %d: retry %v, want %v", i, got, tc.retries[i])
				}
			}
			var sevs []findings.Severity
			for _, f := range p.c.Findings {
				if f.Code != findings.VersionRetried || !strings.Contains(f.Message, "basic/versioning") {
					t.Errorf("finding %v %q", f.Code, f.Message)
				}
				sevs = append(sevs, f.Severity)
			}
			if strings.Join(sevStrings(sevs), ",") != strings.Join(sevStrings(tc.sev), ",") {
				t.Errorf("findings at %v, want %v", sevs, tc.sev)
			}
		})
	}
}

func sevStrings(s []findings.Severity) []string {
	var out []string
	for _, v := range s {
		out = append(out, string(v))
	}
	return out
}
