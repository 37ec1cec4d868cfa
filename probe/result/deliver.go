package result

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
	"github.com/mcpprobe/mcpprobe/probe/tokens"
	"github.com/tidwall/gjson"
)

// Outcomes of a delivery.
const (
	Whole     = "whole"
	Truncated = "truncated"
	Persisted = "persisted"
	Notice    = "notice"
	Dropped   = "dropped"
	Unknown   = "unknown"
)

// MaxEstimateBytes bounds the text counted with o200k_base for an
// estimate shown beside a host's own count.
const MaxEstimateBytes = 4 << 20

// approxLabel starts a View that is not the host's exact text.
const approxLabel = "(approximation by mcpprobe: the host's exact wording is not published)\n"

func deliver(hosts []hosts.Host, in Input, a Analysis) []Delivery {
	out := make([]Delivery, 0, len(hosts))
	var text *resultText
	for _, h := range hosts {
		r := h.Result
		d := Delivery{Host: h.ID, HostName: h.Name, MeasuredOn: r.MeasuredOn, Source: r.Source, Outcome: Unknown}
		switch {
		case in.Kind != KindTool && in.Kind != "":
			d.Note = "hosts' result rules are known for tool results only"
		case a.Unreadable:
			// Sizes read from a result mcpprobe could not walk would be
			// zeros that look like an empty result.
			d.Note = "the result could not be analysed (see result-malformed): what this host delivers of it is not worked out"
		case a.ResultType != "" && a.ResultType != "complete":
			d.Note = "not a final result (resultType " + a.ResultType + "): the host reads the one that follows"
		case r.Rule == "whole":
			d.Outcome, d.Unit = Whole, "bytes"
			if text == nil {
				text = readText(in)
			}
			d.Size, d.Delivered = len(text.all), len(text.all)
			d.View = text.all
		case r.Rule == "cap":
			if text == nil {
				text = readText(in)
			}
			capRule(&d, r, in, a, text)
		case r.Rule == "head_tail":
			if text == nil {
				text = readText(in)
			}
			headTail(&d, r, a, text)
		case r.Rule == "spill":
			if text == nil {
				text = readText(in)
			}
			spill(&d, r, a, text)
		default:
			d.Note = r.Notes
			if d.Note == "" {
				d.Note = "no known rule for what this host does with a result"
			}
		}
		if in.Kind == KindTool || in.Kind == "" {
			d.Note = join(d.Note, contentNote(r, a, h.Name))
		}
		out = append(out, d)
	}
	return out
}

// resultText is what hosts read of a tool result.
type resultText struct {
	all        string // the text blocks (and embedded text resources), joined by newlines
	chars      int    // UTF-16 code units of all, as JavaScript counts
	structured string // structuredContent, compact, "" when absent
	content    string // the content array, compact
	hasImage   bool
	ok         bool // the result could be read
}

func readText(in Input) *resultText {
	t := &resultText{}
	if !probe.Walkable(in.Result) || !gjson.ValidBytes(in.Result) {
		return t
	}
	r := gjson.ParseBytes(in.Result)
	t.ok = r.IsObject()
	var parts []string
	i := 0
	r.Get("content").ForEach(func(_, b gjson.Result) bool {
		if i >= MaxBlocks {
			return false
		}
		i++
		switch b.Get("type").String() {
		case "text":
			parts = append(parts, b.Get("text").Str)
		case "resource":
			if s := b.Get("resource.text"); s.Type == gjson.String {
				parts = append(parts, s.Str)
			}
		case "image":
			t.hasImage = true
		}
		return true
	})
	t.all = strings.Join(parts, "\n")
	t.chars = utf16Len(t.all)
	if sc := r.Get("structuredContent"); sc.Exists() {
		t.structured = compact(sc.Raw)
	}
	if c := r.Get("content"); c.Exists() {
		t.content = compact(c.Raw)
	}
	return t
}

func compact(raw string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(raw)); err != nil {
		return raw
	}
	return b.String()
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// capRule applies a Claude Code style rule: a character threshold past
// which the result is saved to a file, a token cap counted by the host's
// rule, and a warning threshold.
func capRule(d *Delivery, r hosts.ResultRule, in Input, a Analysis, t *resultText) {
	d.Unit = "tokens (" + r.Count + ")"
	if r.Count == "" {
		d.Unit = "tokens"
	}
	d.Size = countBy(r.Count, t.chars)
	d.Limit = r.TokenLimit
	var notes []string
	if est, ok := estimate(t.all); ok && r.Count != "" {
		notes = append(notes, fmt.Sprintf("o200k_base estimate (ours): %s tokens", num(est)))
	}
	persist := r.PersistChars
	if r.MetaOverride != "" {
		if v := gjson.GetBytes(in.Tool, "_meta."+gjsonEscape(r.MetaOverride)); v.Type == gjson.Number && v.Int() > 0 {
			n := int(v.Int())
			if r.MetaCeiling > 0 && n > r.MetaCeiling {
				notes = append(notes, fmt.Sprintf("the tool's %s (%s) is over the %s ceiling", r.MetaOverride, num(n), num(r.MetaCeiling)))
				n = r.MetaCeiling
			}
			notes = append(notes, fmt.Sprintf("threshold %s characters, from the tool's %s", num(n), r.MetaOverride))
			persist = n
		}
	}
	over := r.Over
	if over == "" {
		over = Notice
	}
	switch {
	case a.IsError && (persist > 0 && t.chars > persist || r.TokenLimit > 0 && d.Size > r.TokenLimit):
		d.Outcome = Unknown
		notes = append(notes, "a large isError result is handled by another rule, not modelled")
	case persist > 0 && !t.hasImage && t.chars > persist:
		d.Outcome = over
		notes = append(notes, fmt.Sprintf("%s characters (%s) is over the %s-character threshold", num(t.chars), charUnit(r.CharUnit), num(persist)))
	case r.TokenLimit > 0 && d.Size > r.TokenLimit:
		d.Outcome = over
		notes = append(notes, fmt.Sprintf("over the %s-token cap (%s overrides it)", num(r.TokenLimit), r.OverrideEnv))
	default:
		d.Outcome = Whole
		d.Delivered = d.Size
		d.View = t.all
		if r.WarnTokens > 0 && d.Size > r.WarnTokens {
			notes = append(notes, fmt.Sprintf("over %s tokens: the host shows a warning", num(r.WarnTokens)))
		}
	}
	if d.Outcome == Persisted || d.Outcome == Notice {
		d.View = persistedView(d.Outcome, r, t)
		d.Delivered = countBy(r.Count, utf16Len(strings.TrimPrefix(d.View, approxLabel)))
		d.Lost = max(d.Size-d.Delivered, 0)
		notes = append(notes, "the view is an approximation")
	}
	d.Note = join(d.Note, strings.Join(notes, "; "))
}

// countBy counts tokens by a host's rule from a length in its unit.
func countBy(rule string, chars int) int {
	if rule == "length/4" {
		return (chars + 3) / 4
	}
	return chars
}

func charUnit(u string) string {
	switch u {
	case "utf16":
		return "UTF-16 code units, as JavaScript counts"
	case "byte":
		return "bytes"
	}
	return "code points"
}

// estimate counts text with o200k_base, within a bound.
func estimate(s string) (int, bool) {
	if len(s) > MaxEstimateBytes {
		return 0, false
	}
	n, err := tokens.Count(s)
	return n, err == nil
}

// persistedView is what replaces a persisted result, as far as known: a
// reference to the file and a preview of the start.
func persistedView(outcome string, r hosts.ResultRule, t *resultText) string {
	if outcome == Notice {
		return approxLabel + fmt.Sprintf("MCP tool response (%s tokens) exceeds maximum allowed tokens (%s). Please use pagination, filtering, or limit parameters to reduce the response size.",
			num(countBy(r.Count, t.chars)), num(r.TokenLimit))
	}
	var b strings.Builder
	b.WriteString(approxLabel)
	fmt.Fprintf(&b, "Output too large (%s characters). Full output saved to: <file in the session's tool-results folder>\n", num(t.chars))
	if r.PreviewBytes > 0 {
		fmt.Fprintf(&b, "\nPreview (first %s bytes):\n%s\n…\n", num(r.PreviewBytes), prefixBytes(t.all, r.PreviewBytes))
	}
	return b.String()
}

// headTail applies a Codex style rule to the JSON the host serializes.
func headTail(d *Delivery, r hosts.ResultRule, a Analysis, t *resultText) {
	s := t.content
	what := "the content array, as JSON"
	if r.Prefers == "structured" && t.structured != "" {
		s, what = t.structured, "structuredContent, as JSON"
	}
	d.Unit = "bytes"
	d.Size, d.Limit = len(s), r.MaxBytes
	view, head, tail := cutHeadTail(s, r)
	kept := head + tail
	d.View = view
	d.Delivered = len(view)
	d.Lost = len(s) - kept
	lines := countLines(s)
	notes := []string{fmt.Sprintf("the model reads %s (serialization approximated: compact, keys in the server's order)", what)}
	if kept == len(s) {
		d.Outcome = Whole
	} else {
		d.Outcome = Truncated
		where := "bytes"
		if len(s) <= r.MaxBytes {
			where = "lines"
		}
		notes = append(notes, fmt.Sprintf("cut by %s: %s bytes, %s, over %s bytes or %d lines; the model reads the first %s bytes and the last %s, around a marker",
			where, num(len(s)), plural(lines, "line"), num(r.MaxBytes), r.MaxLines, num(head), num(tail)))
	}
	d.Note = join(d.Note, strings.Join(notes, "; "))
}

// cutHeadTail reproduces a head+tail cut: whole when within both limits;
// past the byte limit, a byte head and tail around a marker; past the
// line limit only, a line head and tail around a marker, each within the
// byte budget. It returns the view and how many bytes of s's head and
// tail it keeps.
func cutHeadTail(s string, r hosts.ResultRule) (view string, head, tail int) {
	total := countLines(s)
	if (r.MaxBytes <= 0 || len(s) <= r.MaxBytes) && (r.MaxLines <= 0 || total <= r.MaxLines) {
		return s, len(s), 0
	}
	header := fill(r.Header, map[string]int{"total": total})
	var b strings.Builder
	b.WriteString(header)
	limit := r.MaxBytes
	if limit <= 0 {
		limit = len(s)
	}
	if len(s) > limit {
		marker := fill(r.MarkerBytes, map[string]int{"max_bytes": limit})
		h := prefixBytes(s, min(r.HeadBytes, limit-len(marker)))
		b.WriteString(h)
		b.WriteString(marker)
		t := suffixBytes(s, limit-len(h)-len(marker))
		b.WriteString(t)
		return b.String(), len(h), len(t)
	}
	segs := strings.SplitAfter(s, "\n")
	if segs[len(segs)-1] == "" {
		segs = segs[:len(segs)-1]
	}
	headN := min(r.HeadLines, len(segs))
	tailN := min(r.TailLines, len(segs)-headN)
	omitted := len(segs) - headN - tailN
	headEnd := 0
	for _, g := range segs[:headN] {
		headEnd += len(g)
	}
	tailStart := len(s)
	for _, g := range segs[len(segs)-tailN:] {
		tailStart -= len(g)
	}
	marker := ""
	if omitted > 0 {
		marker = fill(r.MarkerLines, map[string]int{"omitted": omitted, "total": total})
	}
	h := prefixBytes(s[:headEnd], min(r.HeadBytes, limit-len(marker)))
	b.WriteString(h)
	b.WriteString(marker)
	var t string
	if rest := limit - len(h) - len(marker); rest > 0 {
		t = suffixBytes(s[tailStart:], rest)
		b.WriteString(t)
	}
	return b.String(), len(h), len(t)
}

// countLines counts lines as Rust's str::lines does: a final line
// without a newline counts, an empty string has none.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// prefixBytes is the longest prefix of s of at most n bytes that ends on
// a character boundary.
func prefixBytes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// suffixBytes is the longest suffix of s of at most n bytes that starts
// on a character boundary.
func suffixBytes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if n >= len(s) {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// fill replaces {name} placeholders.
func fill(tmpl string, vals map[string]int) string {
	for k, v := range vals {
		tmpl = strings.ReplaceAll(tmpl, "{"+k+"}", strconv.Itoa(v))
	}
	return tmpl
}

// gjsonEscape escapes a _meta key such as "anthropic/maxResultSizeChars"
// for a gjson path.
func gjsonEscape(k string) string {
	r := strings.NewReplacer(".", `\.`, "*", `\*`, "?", `\?`, "|", `\|`, "#", `\#`, "@", `\@`)
	return r.Replace(k)
}

// contentNote says which of the result's block types the host is not
// known to pass, or drops, and what it reads when structured content and
// text are both there.
func contentNote(r hosts.ResultRule, a Analysis, host string) string {
	if r.Rule == "" || r.Rule == Unknown {
		return ""
	}
	status := map[string][]string{}
	seen := map[string]bool{}
	for _, b := range a.Blocks {
		if seen[b.Type] {
			continue
		}
		seen[b.Type] = true
		s := r.Content[b.Type]
		if s == "" {
			s = Unknown
		}
		if s != "passed" {
			status[s] = append(status[s], b.Type)
		}
	}
	var notes []string
	for _, s := range []string{Dropped, Unknown} {
		if ts := status[s]; len(ts) > 0 {
			sort.Strings(ts)
			verb := "drops"
			if s == Unknown {
				verb = "is not known to pass"
			}
			notes = append(notes, fmt.Sprintf("%s %s %s blocks", host, verb, strings.Join(ts, ", ")))
		}
	}
	if a.Structured != nil && a.Structured.Present {
		switch r.Prefers {
		case "structured":
			notes = append(notes, host+" reads structuredContent, not the text blocks")
		case "text":
			notes = append(notes, host+" reads the text blocks, not structuredContent")
		}
	}
	return strings.Join(notes, "; ")
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return num(n) + " " + what + "s"
}

// num prints a count with thousands separators.
func num(n int) string { return probe.Comma(int64(n)) }

// DeliveryFindings are the result-cut findings of deliveries: one per host
// that does not hand the model the whole result.
func DeliveryFindings(ds []Delivery) []findings.Finding {
	var out []findings.Finding
	for _, d := range ds {
		switch d.Outcome {
		case Truncated, Persisted, Notice, Dropped:
			lost := ""
			if d.Size > 0 {
				lost = fmt.Sprintf(": %s of %s %s lost", num(d.Lost), num(d.Size), d.Unit)
			}
			out = append(out, findings.New(findings.ResultCut, "%s: %s%s", d.HostName, d.Outcome, lost))
		}
	}
	return out
}
