package budget

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/hosts"
	"github.com/mcpprobe/mcpprobe/probe/tokens"
	"github.com/tidwall/gjson"
)

// TestDeliveredTools checks the definitions each host sends on, byte for
// byte where it changes nothing.
func TestDeliveredTools(t *testing.T) {
	long := strings.Repeat("word ", 1000) // 5,000 UTF-16 units: over Claude Code's 4,096
	big := `{"name":"big","description":"` + long + `","inputSchema":{"type":"object"},"outputSchema":{"type":"object","description":"out"}}`
	small := `{"name":"small","inputSchema":{"type":"object"}}`
	instr := "Call big first."
	c := capture([]string{big, small}, &instr)
	for _, tc := range []struct {
		host      string
		same      bool
		desc      string // big's delivered description
		hasOut    bool
		smallDesc string // small has none: only a prepending host gives it one
	}{
		{"claude-code", false, long[:4096] + "… [truncated]", false, ""},
		{"claude-ai", false, long, false, ""},
		{"chatgpt-work", true, long, true, ""},
		{"codex", false, instr + "\n\n" + long, true, instr},
	} {
		t.Run(tc.host, func(t *testing.T) {
			h := hostByID(t, tc.host)
			hr := Compute(c, []hosts.Host{h}).Hosts[0]
			out, changed := deliveredTools(c.Tools.Items, hr, c.Instructions)
			if same := !changed[0] && !changed[1]; same != tc.same {
				t.Errorf("same = %v, want %v (changed %v)", same, tc.same, changed)
			}
			if got := gjson.GetBytes(out[0], "description").String(); got != tc.desc {
				t.Errorf("description %.60q…, want %.60q…", got, tc.desc)
			}
			if got := gjson.GetBytes(out[0], "outputSchema").Exists(); got != tc.hasOut {
				t.Errorf("outputSchema delivered = %v, want %v", got, tc.hasOut)
			}
			if got := gjson.GetBytes(out[1], "description").String(); got != tc.smallDesc {
				t.Errorf("small's description %q, want %q", got, tc.smallDesc)
			}
			if !gjson.ValidBytes(out[0]) || !gjson.ValidBytes(out[1]) {
				t.Errorf("not JSON: %s", out)
			}
			if tc.same && string(out[0]) != big {
				t.Errorf("unchanged tool not kept byte for byte")
			}
		})
	}
}

// TestHostTokens checks what each host pays against counts made by hand
// of what it delivers, and that a filter's tools are not paid for.
func TestHostTokens(t *testing.T) {
	long := strings.Repeat("word ", 1000)
	instr := "Call big first."
	big := `{"name":"big","description":"` + long + `","inputSchema":{"type":"object"}}`
	small := `{"name":"small","description":"A small tool.","inputSchema":{"type":"object"}}`
	c := capture([]string{big, small}, &instr)
	hs := []hosts.Host{hostByID(t, "claude-code"), hostByID(t, "claude-ai"), hostByID(t, "codex")}
	count := func(items ...string) int {
		var b [][]byte
		for _, s := range items {
			b = append(b, []byte(s))
		}
		d, err := tokens.OfTools(nil, b)
		if err != nil {
			t.Fatal(err)
		}
		return d.Total
	}
	text := func(s string) int {
		n, err := tokens.Count(s)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	asSent := count(big, small)
	cutBig := `{"name":"big","description":"` + long[:4096] + `… [truncated]","inputSchema":{"type":"object"}}`
	codexBig := `{"name":"big","description":"` + instr + `\n\n` + long + `","inputSchema":{"type":"object"}}`
	codexSmall := `{"name":"small","description":"` + instr + `\n\nA small tool.","inputSchema":{"type":"object"}}`

	for _, tc := range []struct {
		name   string
		filter ToolFilter
		want   map[string]HostTokens
		out    []string
	}{
		{"no filter", ToolFilter{}, map[string]HostTokens{
			"claude-code": {Tokens: count(cutBig, small) + text(instr), Instructions: text(instr), Search: "share_of_context"},
			"claude-ai":   {Tokens: asSent, Deferred: true, Search: "always"},
			"codex":       {Tokens: count(codexBig, codexSmall), Instructions: count(codexBig, codexSmall) - asSent, Deferred: true, Search: "always"},
		}, nil},
		{"exclude big", ToolFilter{Exclude: []string{"big"}}, map[string]HostTokens{
			"claude-code": {Tokens: count(small) + text(instr), Instructions: text(instr), Search: "share_of_context"},
			"claude-ai":   {Tokens: count(small), Deferred: true, Search: "always"},
			"codex":       {Tokens: count(codexSmall), Instructions: count(codexSmall) - count(small), Deferred: true, Search: "always"},
		}, []string{"big"}},
		{"include small", ToolFilter{Include: []string{"small", "absent"}}, nil, []string{"big"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := AnalyseFiltered(context.Background(), c, hs, nil, tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(r.FilteredOut, ",") != strings.Join(tc.out, ",") {
				t.Errorf("filtered out %q, want %q", r.FilteredOut, tc.out)
			}
			if len(r.HostTokens) != len(hs) {
				t.Fatalf("%d hosts, want %d", len(r.HostTokens), len(hs))
			}
			for _, got := range r.HostTokens {
				want, ok := tc.want[got.Host]
				if !ok {
					continue
				}
				want.Host = got.Host
				if got != want {
					t.Errorf("%s: %+v, want %+v", got.Host, got, want)
				}
			}
			if tc.want == nil && r.HostTokens[1].Tokens != count(small) {
				t.Errorf("claude-ai with include small: %d, want %d", r.HostTokens[1].Tokens, count(small))
			}
			if r.Tokens.Total != asSent {
				t.Errorf("tokens as sent %d, want %d whatever the filter", r.Tokens.Total, asSent)
			}
		})
	}
}

// TestSumPerHost checks that a config's figure for a host is the sum of
// what its servers pay there, and that the share-of-context rule reads it.
func TestSumPerHost(t *testing.T) {
	cc := hostByID(t, "claude-code")
	servers := []ServerTools{
		{Name: "a", Tools: []string{"x"}, Tokens: 100, Hosts: map[string]HostTokens{"claude-code": {Tokens: 15000, Instructions: 10}}},
		{Name: "b", Tools: []string{"y"}, Tokens: 200, Hosts: map[string]HostTokens{"claude-code": {Tokens: 6000}}},
		{Name: "c", Tools: []string{"z"}, Tokens: 50}, // no per-host figure: paid as sent
	}
	tt := Sum(servers, []hosts.Host{cc})
	h := tt.Hosts[0]
	if tt.Tokens != 350 || h.Tokens != 21050 || h.Instructions != 10 || h.ToolSearch != "defers" || !h.IfLoaded {
		t.Errorf("totals %d, host %+v", tt.Tokens, h)
	}
	tt = Sum(servers[1:], []hosts.Host{cc})
	if h := tt.Hosts[0]; h.Tokens != 6050 || h.ToolSearch != "loads" || h.IfLoaded {
		t.Errorf("two servers: host %+v", h)
	}
}

// A cut of a tool the filter leaves out is no finding; one of a kept
// tool still is.
func TestFilterDropsBudgetFindings(t *testing.T) {
	long := strings.Repeat("word ", 1000)
	c := capture([]string{
		`{"name":"big","description":"` + long + `","inputSchema":{"type":"object"}}`,
		`{"name":"big2","description":"` + long + `","inputSchema":{"type":"object"}}`,
	}, nil)
	hs := []hosts.Host{hostByID(t, "claude-code")}
	cuts := func(f ToolFilter) []string {
		r, err := AnalyseFiltered(context.Background(), c, hs, nil, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, x := range r.Budget {
			if x.Code.String() == "cut" {
				out = append(out, x.Tool)
			}
		}
		return out
	}
	if got := strings.Join(cuts(ToolFilter{}), ","); got != "big,big2" {
		t.Errorf("no filter: cuts of %q", got)
	}
	if got := strings.Join(cuts(ToolFilter{Exclude: []string{"big"}}), ","); got != "big2" {
		t.Errorf("big left out: cuts of %q", got)
	}
}
