package budget

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/hosts"
	"github.com/tidwall/gjson"
)

// pad is filler text of exactly n bytes (ASCII, so n UTF-16 units), in
// sentences that match no rule.
func pad(n int) string {
	s := strings.Repeat("Lists the files of a folder. ", n/29+1)
	return s[:n]
}

func TestLostAfterCut(t *testing.T) {
	cc := hosts.Rule{Rule: "cut", Limit: 2048, Unit: "utf16", Marker: "… [truncated]", Surrogate: "whole"}
	schema := `{"type":"object","properties":{"path":{"type":"string"},"mode":{"type":"string","enum":["fast","thorough"]}},"required":["path"]}`
	tests := []struct {
		name   string
		text   string
		schema string
		want   []string // rule=words, in order
	}{
		{"the issue's example: required and never after 2,048",
			pad(2100) + "\nRequired: path. Never call on production.\n" + pad(850), `{}`,
			[]string{"warning=Required", "warning=Never"}},
		{"a required parameter named only after the cut",
			pad(2100) + " Pass path as an absolute folder.", schema,
			[]string{"required-param=path"}},
		{"a required parameter the delivered text names already is not lost",
			"Give path. " + pad(2100) + " Pass path as an absolute folder.", schema, nil},
		{"enum values past the cut",
			pad(2100) + " Use mode thorough for big trees.", schema,
			[]string{"enum-value=thorough"}},
		{"a default",
			pad(2100) + " The depth defaults to 3.", `{}`, []string{"default=defaults"}},
		{"an example call",
			pad(2100) + " Call it as list_files(path).", `{}`, []string{"example=list_files("}},
		{"an example word wins over the call it shows",
			pad(2100) + " For example: list_files(path).", `{}`, []string{"example=example"}},
		{"destructive and irreversible",
			pad(2100) + " This is destructive. It is irreversible.", `{}`, []string{"warning=destructive", "warning=irreversible"}},
		{"a word inside a longer one is no match",
			pad(2100) + " Nevertheless the mustard defaulted.", `{}`, nil},
		{"nothing cut, nothing lost",
			"Never call on production.", `{}`, nil},
		{"the warning before the cut is delivered",
			"Never call on production. " + pad(2100), `{}`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Deliver(tc.text, cc)
			var got []string
			for _, l := range LostAfterCut(d, gjson.Parse(tc.schema)) {
				got = append(got, l.Rule+"="+l.Words)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestLostAfterCutHosts is the done-when line: a 3,000-character
// description whose "required: path" and "never call on production"
// sentences sit past 2,048 gets a lost-after-cut finding on the Claude
// Code versions that cut at 2,048 naming both, and none on the hosts that
// keep the whole text: today's Claude Code (4,096) among them.
func TestLostAfterCutHosts(t *testing.T) {
	desc := pad(2100) + "\nRequired: path. Never call on production.\n"
	desc += pad(3000 - len(desc))
	if len(desc) != 3000 {
		t.Fatalf("description is %d chars", len(desc))
	}
	older, err := hosts.Select(hosts.Known(), []string{"claude-code@2.1.197,claude-code@2.1.280,claude-code@2.1.295"})
	if err != nil {
		t.Fatal(err)
	}
	cut, whole := map[string]bool{}, map[string]bool{}
	for _, h := range append(hosts.Known(), older...) {
		d := Deliver(desc, h.Description)
		ls := LostAfterCut(d, gjson.Parse(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`))
		msg := omits(ls)
		switch {
		case h.Description.Rule == "cut" && h.Description.Limit < 2100:
			cut[h.ID] = true
			if !strings.Contains(msg, `"Required: path."`) || !strings.Contains(msg, `"Never"`) || !strings.Contains(msg, `required parameter "path"`) {
				t.Errorf("%s: %s", h.ID, msg)
			}
		case h.Description.Rule != "cut" || h.Description.Limit >= 3000:
			whole[h.ID] = true
			if len(ls) > 0 || d.Mode != "whole" {
				t.Errorf("%s keeps the whole text, yet: %s %s", h.ID, d.Mode, msg)
			}
		}
	}
	if len(cut) != 3 || !whole["claude-code"] || !whole["cowork"] {
		t.Errorf("cut on %v, whole on %v: want the three older Claude Codes cut, today's and Cowork whole", cut, whole)
	}
}

func TestLostBounded(t *testing.T) {
	cc := hosts.Rule{Rule: "cut", Limit: 10, Unit: "utf16"}
	d := Deliver("0123456789"+strings.Repeat(" Never do it. Must do it. Default is 1.", 1000), cc)
	if n := len(LostAfterCut(d, gjson.Result{})); n > maxLost {
		t.Errorf("%d items, want at most %d", n, maxLost)
	}
	long := "0123456789 Never " + strings.Repeat("x", 1000)
	for _, l := range LostAfterCut(Deliver(long, cc), gjson.Result{}) {
		if len([]rune(l.Sentence)) > maxLostSentence {
			t.Errorf("sentence of %d runes", len([]rune(l.Sentence)))
		}
	}
}

// TestDeliverSurrogate: a host that keeps surrogate pairs whole (Claude
// Code, read in its code) keeps 2,047 units before an emoji that
// straddles the 2,048 cut; one that slices keeps half of it.
func TestDeliverSurrogate(t *testing.T) {
	text := strings.Repeat("a", 2047) + "😀" + "tail"
	for _, tc := range []struct {
		surrogate string
		delivered int
		splits    bool
		head      string
	}{
		{"whole", 2047, false, strings.Repeat("a", 2047)},
		{"split", 2048, true, strings.Repeat("a", 2047) + "\uFFFD"},
		{"", 2048, true, strings.Repeat("a", 2047) + "\uFFFD"},
	} {
		d := Deliver(text, hosts.Rule{Rule: "cut", Limit: 2048, Unit: "utf16", Surrogate: tc.surrogate})
		if d.Delivered != tc.delivered || d.Cut.SplitsChar != tc.splits || d.Head != tc.head || d.Tail != "😀tail" || d.Lost != d.Len-tc.delivered {
			t.Errorf("surrogate %q: delivered %d, splits %v, lost %d, tail %q", tc.surrogate, d.Delivered, d.Cut.SplitsChar, d.Lost, d.Tail)
		}
	}
}

// TestLostRulesDocumented: docs/reference.md's table of the rules is
// LostRules, row for row.
func TestLostRulesDocumented(t *testing.T) {
	data, err := os.ReadFile("../../docs/reference.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range LostRules {
		if row := "| `" + r.Name + "` | " + r.Matches + " |"; !strings.Contains(string(data), row) {
			t.Errorf("docs/reference.md lacks the row %s", row)
		}
	}
}

// TestLostLargeTail: a 4 MB lost tail with 200 required names and no
// match anywhere is read in one bounded pass (no time asserted: it must
// simply finish, as the package's other bounded tests).
func TestLostLargeTail(t *testing.T) {
	var req []string
	for i := 0; i < 300; i++ {
		req = append(req, fmt.Sprintf(`"p%03d"`, i))
	}
	schema := gjson.Parse(`{"required":[` + strings.Join(req, ",") + `]}`)
	d := Deliver(pad(2100)+strings.Repeat("Lists the files of a folder. ", 150_000), hosts.Rule{Rule: "cut", Limit: 2048, Unit: "utf16"})
	if got := LostAfterCut(d, schema); len(got) != 0 {
		t.Errorf("%+v", got)
	}
}

// TestOmitsSaysTheDefault: a lost default is told by its value, not by
// the word "default" the rule matched.
func TestOmitsSaysTheDefault(t *testing.T) {
	tests := []struct {
		sentence, words, want string
	}{
		{"The limit defaults to 10MB.", "defaults", `a default of "10MB" (default, in "The limit defaults to 10MB.")`},
		{"Depth (default 3) of the walk.", "default", `a default of "3" (default`},
		{"Format default: json", "default", `a default of "json" (default`},
		{"The default depth is 3.", "default", `a default of "3" (default`},
		{"The default is the first page.", "default", `a default of "the first" (default`},
		{"Sorted by date by default.", "by default", `a default (default, in "Sorted by date by default.")`},
		{"Uses the default.", "default", `a default (default, in`},
		{"The default is " + strings.Repeat("x", 100) + ".", "default", `a default of "` + strings.Repeat("x", maxDefaultValue) + `…" (default`},
	}
	for _, tc := range tests {
		got := omits([]Lost{{Rule: "default", Words: tc.words, Sentence: tc.sentence}})
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q: %s\nwant it to start %s", tc.sentence, got, tc.want)
		}
		if strings.Contains(got, `default "`+tc.words+`"`) {
			t.Errorf("%q: names the word, not the value: %s", tc.sentence, got)
		}
	}
}
