package result

import (
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/hosts"
)

func knownHost(t *testing.T, id string) hosts.Host {
	t.Helper()
	for _, h := range hosts.Known() {
		if h.ID == id {
			return h
		}
	}
	t.Fatalf("no host %s", id)
	return hosts.Host{}
}

// TestSpill: what Gemini CLI, Copilot CLI and OpenCode hand the model of
// a 100,000-character result, to the unit, and of results under their
// thresholds or outside their rule.
func TestSpill(t *testing.T) {
	text100k := strings.Repeat("a", 99_990) + "0123456789"
	lines := strings.Repeat(strings.Repeat("b", 99)+"\n", 3000) // 3,000 lines of 100 bytes
	for _, c := range []struct {
		host, text                string
		raw                       string // a result other than one text block
		outcome                   string
		size, delivered, lost     int
		view, notInView, noteHave []string
	}{
		{host: "gemini-cli", text: text100k, outcome: Truncated, size: 100_041, delivered: 40_000, lost: 60_041,
			view: []string{"Output too large. Showing first 8,000 and last 32,000 characters. For full output see: ", "\n<untrusted_context>\naaa", "\n\n... [60,041 characters omitted] ...\n\n", "0123456789\n</untrusted_context>"}},
		{host: "gemini-cli", text: strings.Repeat("a", 39_959), outcome: Whole, size: 40_000, delivered: 40_000},
		{host: "gemini-cli", raw: `{"content":[{"type":"text","text":"` + strings.Repeat("a", 50_000) + `"},{"type":"text","text":"b"}]}`, outcome: Whole, noteHave: []string{"has 2 blocks"}},
		{host: "copilot-cli", text: text100k, outcome: Persisted, size: 100_000, delivered: 500, lost: 99_500,
			view: []string{"Output too large to read at once (97.7 KB). Saved to: ", "Preview (first 500 chars):\n" + strings.Repeat("a", 500)}, notInView: []string{strings.Repeat("a", 501)}},
		{host: "copilot-cli", text: "short", outcome: Unknown, noteHave: []string{"at most 20,685 bytes"}},
		{host: "opencode", text: text100k, outcome: Truncated, size: 100_000, delivered: 0, lost: 100_000,
			view: []string{"\n\n...100000 bytes truncated...\n\nThe tool call succeeded"}, noteHave: []string{"none of its text"}},
		{host: "opencode", text: lines, outcome: Truncated, size: 300_000, delivered: 51_199, lost: 248_801,
			view: []string{"\n\n...248801 bytes truncated...\n\n"}},
	} {
		raw := c.raw
		if raw == "" {
			raw = string(textResult(c.text))
		}
		in := Input{Kind: KindTool, Result: []byte(raw)}
		d := Deliver([]hosts.Host{knownHost(t, c.host)}, in, Analyse(in))[0]
		if d.Outcome != c.outcome || c.size > 0 && (d.Size != c.size || d.Delivered != c.delivered || d.Lost != c.lost) {
			t.Errorf("%s, %d bytes: %s size %d delivered %d lost %d, want %s %d %d %d (%s)", c.host, len(raw), d.Outcome, d.Size, d.Delivered, d.Lost, c.outcome, c.size, c.delivered, c.lost, d.Note)
		}
		for _, w := range c.view {
			if !strings.Contains(d.View, w) {
				t.Errorf("%s: the view lacks %.80q", c.host, w)
			}
		}
		for _, w := range c.notInView {
			if strings.Contains(d.View, w) {
				t.Errorf("%s: the view has %.40q…", c.host, w)
			}
		}
		for _, w := range c.noteHave {
			if !strings.Contains(d.Note, w) {
				t.Errorf("%s: the note lacks %q: %s", c.host, w, d.Note)
			}
		}
	}
}

func TestUTF16Slices(t *testing.T) {
	s := "a😀b" // 1 + 2 + 1 units
	for n, want := range map[int]string{0: "", 1: "a", 2: "a", 3: "a😀", 4: s} {
		if got := prefixUTF16(s, n); got != want {
			t.Errorf("prefix %d = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int]string{0: "", 1: "b", 2: "b", 3: "😀b", 4: s} {
		if got := suffixUTF16(s, n); got != want {
			t.Errorf("suffix %d = %q, want %q", n, got, want)
		}
	}
}

// TestSpillHostile: a --hosts marker that repeats the text placeholders
// gets the result once, and a result holding a placeholder's name is
// delivered as it is.
func TestSpillHostile(t *testing.T) {
	h := knownHost(t, "gemini-cli")
	h.Result.Marker = strings.Repeat("{head_text}{tail_text}", 10_000)
	text := "{tail_text}" + strings.Repeat("x", 50_000)
	in := Input{Kind: KindTool, Result: textResult(text)}
	d := Deliver([]hosts.Host{h}, in, Analyse(in))[0]
	if len(d.View) > 100_000+2*len(h.Result.Marker) {
		t.Errorf("the view is %d bytes", len(d.View))
	}
	if !strings.Contains(d.View, "<untrusted_context>\n{tail_text}xxx") {
		t.Errorf("the result's own {tail_text} was replaced: %.80q", d.View)
	}
}
