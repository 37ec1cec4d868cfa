package result

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/hosts"
)

func host(t *testing.T, id string) hosts.Host {
	t.Helper()
	for _, h := range hosts.Known() {
		if h.ID == id {
			return h
		}
	}
	t.Fatalf("no host %s", id)
	return hosts.Host{}
}

func textResult(text string) []byte {
	t, _ := json.Marshal(text)
	return fmt.Appendf(nil, `{"content":[{"type":"text","text":%s}]}`, t)
}

func toolWithMeta(n int) []byte {
	return fmt.Appendf(nil, `{"name":"big","inputSchema":{"type":"object"},"_meta":{"anthropic/maxResultSizeChars":%d}}`, n)
}

func TestDeliver(t *testing.T) {
	big := strings.Repeat("0123456789", 12_000) // 120,000 characters
	cases := []struct {
		name      string
		host      string
		in        Input
		outcome   string
		unit      string
		size      int
		lost      int // -1: any positive amount
		view      []string
		notInView []string
		note      []string
	}{
		{
			name: "Claude Code: a small result is whole", host: "claude-code",
			in:      Input{Kind: KindTool, Result: textResult("hello world")},
			outcome: Whole, unit: "tokens (length/4)", size: 3, view: []string{"hello world"},
		},
		{
			name: "Claude Code: 120,000 characters are persisted past 50,000", host: "claude-code",
			in:      Input{Kind: KindTool, Result: textResult(big)},
			outcome: Persisted, size: 30_000, lost: -1,
			view:      []string{"approximation", "120,000 characters", "0123456789"},
			notInView: []string{big[:4000]},
			note:      []string{"over the 50,000-character threshold", "o200k_base estimate (ours)"},
		},
		{
			name: "Claude Code: over 10,000 tokens, under every cap: whole with the warning", host: "claude-code",
			in:      Input{Kind: KindTool, Result: textResult(big[:45_000])},
			outcome: Whole, size: 11_250, note: []string{"over 10,000 tokens: the host shows a warning"},
		},
		{
			name: "Claude Code: the tool's maxResultSizeChars lets 90,000 characters through", host: "claude-code",
			in:      Input{Kind: KindTool, Result: textResult(big[:90_000]), Tool: toolWithMeta(200_000)},
			outcome: Whole, size: 22_500, note: []string{"threshold 200,000 characters, from the tool's anthropic/maxResultSizeChars"},
		},
		{
			name: "Claude Code: under the raised threshold but over the token cap", host: "claude-code",
			in:      Input{Kind: KindTool, Result: textResult(big), Tool: toolWithMeta(200_000)},
			outcome: Persisted, size: 30_000, lost: -1, note: []string{"over the 25,000-token cap (MAX_MCP_OUTPUT_TOKENS overrides it)"},
		},
		{
			name: "Claude Code: maxResultSizeChars is capped at its ceiling", host: "claude-code",
			in:      Input{Kind: KindTool, Result: textResult("x"), Tool: toolWithMeta(900_000)},
			outcome: Whole, note: []string{"(900,000) is over the 500,000 ceiling"},
		},
		{
			name: "Claude Code: a large isError result is not modelled", host: "claude-code",
			in:      Input{Kind: KindTool, Result: []byte(`{"isError":true,"content":[{"type":"text","text":"` + big + `"}]}`)},
			outcome: Unknown,
		},
		{
			name: "Claude Code: an audio block is not known to pass", host: "claude-code",
			in:      Input{Kind: KindTool, Result: []byte(`{"content":[{"type":"audio","mimeType":"audio/wav","data":"` + b64(wavBytes) + `"}]}`)},
			outcome: Whole, note: []string{"Claude Code is not known to pass audio blocks"},
		},
		{
			name: "Codex: a small result is whole, as the JSON of the content array", host: "codex",
			in:      Input{Kind: KindTool, Result: textResult("hello")},
			outcome: Whole, unit: "bytes", size: len(`[{"type":"text","text":"hello"}]`), view: []string{`[{"type":"text","text":"hello"}]`},
		},
		{
			name: "Codex: 120,000 characters keep head and tail around the marker", host: "codex",
			in:      Input{Kind: KindTool, Result: textResult(big)},
			outcome: Truncated, unit: "bytes", size: len(big) + len(`[{"type":"text","text":""}]`), lost: -1,
			note: []string{"cut by bytes: 120,027 bytes, 1 line, over 10,240 bytes or 256 lines; the model reads the first 5,120 bytes and the last 5,072, around a marker"},
			view: []string{"Total output lines: 1\n\n", `[{"type":"text","text":"0123`, "\n[... output truncated to fit 10240 bytes ...]\n\n", `6789"}]`},
		},
		{
			name: "Codex: structuredContent is what it reads", host: "codex",
			in:      Input{Kind: KindTool, Result: []byte(`{"content":[{"type":"text","text":"{\"a\": 1}"}],"structuredContent":{"a": 1}}`)},
			outcome: Whole, size: len(`{"a":1}`), view: []string{`{"a":1}`}, note: []string{"Codex CLI reads structuredContent, not the text blocks"},
		},
		{
			name: "a host without a known rule", host: "cowork",
			in:      Input{Kind: KindTool, Result: textResult("x")},
			outcome: Unknown, note: []string{"no known rule"},
		},
		{
			name: "a task's creation result is not what the model reads", host: "codex",
			in:      Input{Kind: KindTool, Result: []byte(`{"task":{"taskId":"t1","status":"working"}}`)},
			outcome: Unknown, note: []string{"not a final result (resultType task)"},
		},
		{
			name: "resources/read: no host rule applies", host: "claude-code",
			in:      Input{Kind: KindResource, Result: []byte(`{"contents":[{"uri":"a://b","text":"x"}]}`)},
			outcome: Unknown, note: []string{"tool results only"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := host(t, c.host)
			ds := Deliver([]hosts.Host{h}, c.in, Analyse(c.in))
			if len(ds) != 1 {
				t.Fatalf("%d deliveries", len(ds))
			}
			d := ds[0]
			// A row's date is its result rule's, not its definitions': a
			// rule nobody sourced has none.
			if d.Host != h.ID || d.HostName != h.Name || d.Source == "" || (d.MeasuredOn == "") != (h.Result.MeasuredOn == "") {
				t.Errorf("host fields: %+v", d)
			}
			if d.Outcome != c.outcome {
				t.Fatalf("Outcome = %s, want %s (note %q)", d.Outcome, c.outcome, d.Note)
			}
			if c.unit != "" && d.Unit != c.unit {
				t.Errorf("Unit = %q, want %q", d.Unit, c.unit)
			}
			if c.size != 0 && d.Size != c.size {
				t.Errorf("Size = %d, want %d", d.Size, c.size)
			}
			switch {
			case c.lost == -1 && d.Lost <= 0:
				t.Errorf("Lost = %d, want some", d.Lost)
			case c.lost >= 0 && d.Lost != c.lost:
				t.Errorf("Lost = %d, want %d", d.Lost, c.lost)
			}
			if d.Outcome == Whole && d.Delivered != d.Size {
				t.Errorf("whole: Delivered %d != Size %d", d.Delivered, d.Size)
			}
			for _, w := range c.view {
				if !strings.Contains(d.View, w) {
					t.Errorf("View lacks %q:\n%.300s", w, d.View)
				}
			}
			for _, w := range c.notInView {
				if strings.Contains(d.View, w) {
					t.Errorf("View has %.40q…", w)
				}
			}
			for _, w := range c.note {
				if !strings.Contains(d.Note, w) {
					t.Errorf("Note lacks %q: %q", w, d.Note)
				}
			}
		})
	}
}

// The acceptance: a 120,000-character result is persisted or cut
// on each host with a rule, with the amount lost; one under every cap is
// whole on each.
func TestDeliverAcceptance(t *testing.T) {
	hosts := hosts.Known()
	big := Input{Kind: KindTool, Result: textResult(strings.Repeat("a", 120_000))}
	small := Input{Kind: KindTool, Result: textResult("short")}
	for _, d := range Deliver(hosts, big, Analyse(big)) {
		switch d.Outcome {
		case Persisted, Truncated:
			// OpenCode keeps whole lines only: one line over its limit
			// is lost whole.
			if d.Lost <= 0 || d.Lost >= d.Size && d.Host != "opencode" {
				t.Errorf("%s: %s with %d of %d lost", d.Host, d.Outcome, d.Lost, d.Size)
			}
		case Unknown:
		default:
			t.Errorf("%s: %s for 120,000 characters", d.Host, d.Outcome)
		}
	}
	fs := DeliveryFindings(Deliver(hosts, big, Analyse(big)))
	if len(fs) != 5 || !strings.Contains(fs[0].Message, "lost") {
		t.Errorf("findings = %+v", fs)
	}
	for _, d := range Deliver(hosts, small, Analyse(small)) {
		if d.Outcome != Whole && d.Outcome != Unknown {
			t.Errorf("%s: %s for a short result", d.Host, d.Outcome)
		}
	}
	if fs := DeliveryFindings(Deliver(hosts, small, Analyse(small))); len(fs) != 0 {
		t.Errorf("findings for a short result: %+v", fs)
	}
}

// cutHeadTail is held to the cases of the rule it reproduces.
func TestCutHeadTail(t *testing.T) {
	r := host(t, "codex").Result
	var lines strings.Builder
	for i := range 300 {
		fmt.Fprintf(&lines, "Line %d\n", i)
	}
	long := fmt.Sprintf("Compiling project v1.0.0%s\nBuilding dependencies%s\nRunning tests%s\nWarning: unused import%s\nerror: compilation failed\n",
		strings.Repeat("x", 4970), strings.Repeat("y", 4975), strings.Repeat("z", 4985), strings.Repeat("w", 4973))
	utf := strings.Repeat("é", 6000) // 12,000 bytes: a cut must not split a character
	cases := []struct {
		name   string
		in     string
		whole  bool
		has    []string
		maxLen int
	}{
		{name: "within both limits", in: "Short output\nJust a few lines\n", whole: true},
		{name: "past the line limit only", in: lines.String(), has: []string{"Total output lines: 300\n\n", "Line 0\n", "Line 127\n", "\n[... omitted 44 of 300 lines ...]\n\n", "Line 172\n", "Line 299\n"}, maxLen: 10240 + len("Total output lines: 300\n\n")},
		{name: "past the byte limit", in: long, has: []string{"Compiling project", "output truncated to fit 10240 bytes", "error: compilation failed"}, maxLen: 10240 + len("Total output lines: 5\n\n")},
		{name: "multibyte text", in: utf, has: []string{"output truncated"}, maxLen: 10240 + len("Total output lines: 1\n\n")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, head, tail := cutHeadTail(c.in, r)
			kept := head + tail
			if c.whole {
				if got != c.in || kept != len(c.in) {
					t.Errorf("not whole: %q", got)
				}
				return
			}
			if kept >= len(c.in) || len(got) > c.maxLen {
				t.Errorf("kept %d of %d, view %d bytes (max %d)", kept, len(c.in), len(got), c.maxLen)
			}
			for _, h := range c.has {
				if !strings.Contains(got, h) {
					t.Errorf("view lacks %q", h)
				}
			}
			if strings.Contains(got, "Line 128\n") || strings.Contains(got, "Line 171\n") {
				t.Errorf("view keeps omitted lines")
			}
			if !strings.HasPrefix(c.in, "é") {
				return
			}
			if strings.ContainsRune(got, '\uFFFD') || !strings.HasSuffix(got, "é") {
				t.Errorf("a character was split")
			}
		})
	}
}

func TestNum(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 120000: "120,000", -25000: "-25,000", 100000000: "100,000,000"} {
		if got := num(n); got != want {
			t.Errorf("num(%d) = %q, want %q", n, got, want)
		}
	}
}

// A result too deep to walk, or no object, is delivered "unknown" by every
// host: sizes read from it would be zeros that pass for an empty result.
func TestDeliverUnreadable(t *testing.T) {
	for _, raw := range []string{
		`{"content":[{"type":"text","text":"deep"}],"structuredContent":{"a":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}}`,
		`[1,2,3]`,
	} {
		in := Input{Kind: KindTool, Result: []byte(raw)}
		a := Analyse(in)
		if !a.Unreadable {
			t.Errorf("%.40s: not unreadable", raw)
		}
		for _, d := range Deliver(hosts.Known(), in, a) {
			if d.Outcome != Unknown || d.Size != 0 || !strings.Contains(d.Note, "could not be analysed") {
				t.Errorf("%.40s: %s %s size %d: %s", raw, d.Host, d.Outcome, d.Size, d.Note)
			}
		}
	}
}
