package tokens

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/dlclark/regexp2"
	tiktoken "github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
)

// The reference is tiktoken-go with its offline loader, the implementation
// this package replaced: every count here must equal its count.

// pattern is o200k_base's pre-tokenizer as tiktoken publishes it.
const pattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`

var (
	refOnce sync.Once
	refEnc  *tiktoken.Tiktoken
	refRe   *regexp2.Regexp
	refErr  error
)

func reference(t testing.TB) (*tiktoken.Tiktoken, *regexp2.Regexp) {
	t.Helper()
	refOnce.Do(func() {
		tiktoken.SetBpeLoader(loader.NewOfflineLoader())
		refEnc, refErr = tiktoken.GetEncoding(Encoding)
		if refErr == nil {
			refRe, refErr = regexp2.Compile(pattern, regexp2.None)
		}
	})
	if refErr != nil {
		t.Fatal(refErr)
	}
	return refEnc, refRe
}

func refCount(t testing.TB, s string) int {
	enc, _ := reference(t)
	return len(enc.EncodeOrdinary(s))
}

// refSplit is the reference pre-tokenizer: regexp2 over the text's runes,
// as tiktoken-go runs it.
func refSplit(t testing.TB, s string) []string {
	_, re := reference(t)
	runes := []rune(s)
	var out []string
	m, err := re.FindStringMatch(s)
	for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
		out = append(out, string(runes[m.Index:m.Index+m.Length]))
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func split(s string) []string {
	s = validUTF8(s)
	sc := scanner{s: s}
	var out []string
	for p := 0; p < len(s); {
		e := sc.next(p)
		out = append(out, s[p:e])
		p = e
	}
	return out
}

// sameSplit reports the first piece where split and refSplit differ.
func sameSplit(t *testing.T, s string) {
	t.Helper()
	got, want := split(s), refSplit(t, s)
	for i := 0; i < len(got) || i < len(want); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("split(%q): piece %d = %q, regexp2 has %q", abbrev(s), i, g, w)
			return
		}
	}
}

func abbrev(s string) string {
	if len(s) > 80 {
		return s[:40] + "…" + s[len(s)-40:]
	}
	return s
}

// corpus covers each alternative of the pattern and the places where they
// meet: prose, code, JSON schemas, emoji, CJK, accents, combining marks,
// contractions in every case, digit, space and newline runs, bytes that are
// not UTF-8, and long runs of one character.
var corpus = []string{
	"",
	"hello world",
	"<|endoftext|>",
	"<|endofprompt|> and <|fim_prefix|>",
	"The quick brown fox jumps over the lazy dog. It's 3:45pm, isn't it?",
	"I'm, you're, we've, they'll, he'd, she's, it't, 'S 'T 'RE 'VE 'M 'LL 'D",
	"DON'T, Don't, don'T, DoN't, I'M, YOU'RE, WE'VE, THEY'LL, HE'D, SHE'S, 'Re 'rE 'Ll 'lL 'Ve 'vE",
	"x'ſ x'K x'İ A'ſ 'ﬀ",
	"can'tt won't've y'all o'clock rock'n'roll '' ''s 's",
	"func main() {\n\tfmt.Println(\"hi\")\n}\n",
	"if (a <= b && c != d) { return x->y[0] /* c */; } // done\r\n",
	"def f(x):\n    return x ** 2  # square\n\n\n",
	`{"name":"get_weather","description":"Get the weather for a city.","inputSchema":{"type":"object","properties":{"city":{"type":"string","description":"City name, e.g. \"Paris\""},"units":{"type":"string","enum":["c","f"]}},"required":["city"]}}`,
	"{\n  \"type\": \"object\",\n  \"properties\": {}\n}",
	"emoji 😀😃😄 👩‍👩‍👧‍👦 🇫🇷 ❤️ ✔︎ 🤚🏾",
	"日本語のテキストです。中文文本，한국어 텍스트.",
	"ＡＢＣ全角ａｂｃ１２３",
	"naïve café résumé Ångström Straße ĲSSELMEER ǅungla",
	"e\u0301 a\u0300\u0301\u0302 \u0301\u0301 x\u20dd \u0903\u0915\u093f",
	"ǅ ǈ ǋ ǲ ᾈ ᾉ Title Ǆ",
	"ʰʲʷ ˈstress ー々〆",
	"Ⅻ ⅻ ① ½ ٣٤٥ ०१२ 1234567 12,345.678 3.14159",
	"0123456789012345678901234",
	"a1b22c333d4444",
	"     leading and trailing     ",
	"tabs\t\t\tand\u00a0nbsp\u2003em\u3000ideo\u2028line\u2029para\u0085nel",
	"\n\n\n\r\n\r\r\n x \n \n y\n",
	"   \n   \n   ",
	"end with spaces   ",
	" ",
	"\n",
	"!!!???...---///\n\n///",
	"a/b/c\n/d \\e ~f",
	"invalid \xff\xfe bytes \xe2\x82 and \xc0\x80 and \xed\xa0\x80 surrogate",
	"\xe2\x82\xac\xe2\x82",
	"mixed CamelCaseWords andSomeHTTPRequests XMLHttpRequest iPhone",
	"URL https://example.com/path?q=1&r=2#frag and email a.b@c.de",
	"\x00\x01\x1f\x7f control",
	"$100 €200 ¥300 £4.00",
	strings.Repeat("a", 300),
	strings.Repeat("_", 300),
	strings.Repeat(" ", 300) + "x",
	strings.Repeat("ab", 200),
	strings.Repeat("1", 301),
	strings.Repeat("é", 150),
	strings.Repeat("日", 150),
	strings.Repeat("😀", 80),
	strings.Repeat("\n", 100),
	strings.Repeat("A", 200) + "a",
	strings.Repeat("=-", 200),
}

func TestCount(t *testing.T) {
	// Known o200k_base counts, independent of the reference.
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"<|endoftext|>", 7}, // special tokens are text here, never control
	}
	for _, tc := range tests {
		got, err := Count(tc.text)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("Count(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

func TestCorpusMatchesReference(t *testing.T) {
	for _, s := range corpus {
		sameSplit(t, s)
		got, err := Count(s)
		if err != nil {
			t.Fatal(err)
		}
		if want := refCount(t, s); got != want {
			t.Errorf("Count(%q) = %d, reference %d", abbrev(s), got, want)
		}
	}
}

// TestLongRunsMatchReference covers the merge on pieces long enough for the
// heap to matter, in lengths the quadratic reference can still count.
func TestLongRunsMatchReference(t *testing.T) {
	for _, unit := range []string{"a", "_", "ab", "é", "日", "😀", " ", "\t", "xyz ", "A"} {
		for _, n := range []int{127, 128, 129, 1000, 2049} {
			s := strings.Repeat(unit, n)
			got, err := Count(s)
			if err != nil {
				t.Fatal(err)
			}
			if want := refCount(t, s); got != want {
				t.Errorf("Count(%q × %d) = %d, reference %d", unit, n, got, want)
			}
		}
	}
}

// TestCodePoints splits code points in a few contexts, so each character
// class and the case folding of contractions are checked against regexp2's
// own: every code point of the Basic Multilingual Plane, and above it the
// first, last and neighbouring code points of every range in the tables the
// classes are made of, plus a regular sample. Without the e2e tag
// (thorough off) the Basic Multilingual Plane is sampled too, every range
// edge of its tables and every seventh code point, ASCII and Latin-1 whole:
// regexp2 is slow, and the whole plane is most of this package's test time.
func TestCodePoints(t *testing.T) {
	points := map[rune]bool{}
	for r := rune(0); r <= 0xFFFF; r++ {
		if thorough || r < 0x100 || r%7 == 0 {
			points[r] = true
		}
	}
	for r := rune(0x10000); r <= unicode.MaxRune; r += 251 {
		points[r] = true
	}
	edges := func(lo, hi rune) {
		for _, r := range []rune{lo - 1, lo, lo + 1, hi - 1, hi, hi + 1} {
			points[r] = true
		}
	}
	for _, tab := range []*unicode.RangeTable{unicode.L, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M, unicode.N, unicode.White_Space} {
		for _, rg := range tab.R16 {
			edges(rune(rg.Lo), rune(rg.Hi))
		}
		for _, rg := range tab.R32 {
			edges(rune(rg.Lo), rune(rg.Hi))
		}
	}
	var b strings.Builder
	flush := func() {
		sameSplit(t, b.String())
		b.Reset()
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !points[r] || (r >= 0xD800 && r <= 0xDFFF) {
			continue
		}
		c := string(r)
		// Before a lowercase letter, after an apostrophe, as a prefix, in a run.
		b.WriteString("a" + c + "b '" + c + "e 'l" + c + " 'r" + c + " !" + c + c + "1" + c + " ")
		if b.Len() > 1<<14 {
			flush()
			if t.Failed() {
				return
			}
		}
	}
	flush()
}

func TestVocabularyMatchesSource(t *testing.T) {
	v, err := loadVocab()
	if err != nil {
		t.Fatal(err)
	}
	ranks, err := loader.NewOfflineLoader().LoadTiktokenBpe("o200k_base.tiktoken")
	if err != nil {
		t.Fatal(err)
	}
	if v.n != len(ranks) {
		t.Fatalf("vocabulary has %d tokens, the source %d", v.n, len(ranks))
	}
	for tok, want := range ranks {
		if got := v.rank(tok); got != uint32(want) {
			t.Fatalf("rank(%q) = %d, source has %d", tok, got, want)
		}
		if got := v.token(want); got != tok {
			t.Fatalf("token(%d) = %q, source has %q", want, got, tok)
		}
	}
	// Strings that are not tokens: prefixes and extensions of tokens, and
	// strings past the longest token.
	miss := []string{"", strings.Repeat("a", v.maxLen+1)}
	for tok := range ranks {
		miss = append(miss, tok+"\xff\x00", "\x00\xff"+tok)
		if len(miss) > 1000 {
			break
		}
	}
	for _, s := range miss {
		_, in := ranks[s]
		if got := v.rank(s); in != (got != noRank) {
			t.Errorf("rank(%q) = %d, in source: %v", s, got, in)
		}
	}
}

// toolLists are arrays whose joins exercise every way a "[", "," or "]" can
// meet a tool's first and last characters.
var toolLists = [][]string{
	{},
	{`{}`},
	{`{"name":"a"}`, `{"name":"b","description":"Does b."}`},
	{corpus[12], corpus[13], corpus[12]},
	{"abc", "def", "ABC"},
	{"___", "___"},
	{"  ", " x ", "\n", "\n\n  "},
	{"", "", ""},
	{"1", "23", "456", "7890"},
	{"x'", "s", "'t", "DON'", "T"},
	{"é", "\u0301", "\u0301x", "日本"},
	{"\xff", "\xe2\x82", "\x80abc"},
	{"a/", "/b", "\r", "\n/"},
	{strings.Repeat("a", 500), strings.Repeat("_", 500), strings.Repeat(" ", 500)},
}

func TestOfToolsMatchesReference(t *testing.T) {
	for _, list := range toolLists {
		checkOfTools(t, list)
	}
}

func checkOfTools(t *testing.T, list []string) {
	t.Helper()
	names := make([]string, len(list))
	items := make([][]byte, len(list))
	for i, s := range list {
		names[i] = fmt.Sprint("tool", i)
		items[i] = []byte(s)
	}
	d, err := OfTools(names, items)
	if err != nil {
		t.Fatal(err)
	}
	if d.Encoding != Encoding || len(d.Tools) != len(list) {
		t.Fatalf("OfTools(%q) = %+v", list, d)
	}
	for i, s := range list {
		if want := refCount(t, s); d.Tools[i].Tokens != want || d.Tools[i].Name != names[i] {
			t.Errorf("OfTools(%q): tool %d = %+v, reference %d", list, i, d.Tools[i], want)
		}
	}
	if want := refCount(t, "["+strings.Join(list, ",")+"]"); d.Total != want {
		t.Errorf("OfTools(%q): total %d, reference %d", list, d.Total, want)
	}
}

// FuzzSplit holds the scanner to regexp2 piece by piece, and the count to
// tiktoken-go, on any text.
func FuzzSplit(f *testing.F) {
	for _, s := range corpus {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return // the reference's merge is quadratic
		}
		sameSplit(t, s)
		got, err := Count(s)
		if err != nil {
			t.Fatal(err)
		}
		if want := refCount(t, s); got != want {
			t.Errorf("Count(%q) = %d, reference %d", s, got, want)
		}
	})
}

// FuzzOfTools cuts the input into tools at each sep byte and holds every
// count, the array's above all, to the reference.
func FuzzOfTools(f *testing.F) {
	for _, list := range toolLists {
		f.Add(strings.Join(list, "\x1e"), byte(0x1e))
	}
	f.Fuzz(func(t *testing.T, s string, sep byte) {
		if len(s) > 4096 {
			return
		}
		checkOfTools(t, strings.Split(s, string(sep)))
	})
}

// doneAfter is a context whose Err turns to Canceled on its n-th call, so a
// test can cancel in the middle of a count without timing anything.
type doneAfter struct {
	context.Context
	n, calls int
}

func (c *doneAfter) Err() error {
	c.calls++
	if c.calls >= c.n {
		return context.Canceled
	}
	return nil
}

func TestCancellation(t *testing.T) {
	longRun := strings.Repeat("a", 1<<18) // one piece: only the merge can poll
	longText := strings.Repeat(corpus[4]+"\n", 20000)
	names, items := toolList(2000)
	tests := []struct {
		name  string
		n     int
		count func(context.Context) error
	}{
		{"run before start", 1, func(ctx context.Context) error { _, err := CountContext(ctx, longRun); return err }},
		{"run in the merge", 3, func(ctx context.Context) error { _, err := CountContext(ctx, longRun); return err }},
		{"text between pieces", 3, func(ctx context.Context) error { _, err := CountContext(ctx, longText); return err }},
		{"tools before start", 1, func(ctx context.Context) error { _, err := OfToolsContext(ctx, names, items); return err }},
		{"tools midway", 3, func(ctx context.Context) error { _, err := OfToolsContext(ctx, names, items); return err }},
	}
	for _, tc := range tests {
		ctx := &doneAfter{Context: context.Background(), n: tc.n}
		if err := tc.count(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", tc.name, err)
		}
		if ctx.calls != tc.n {
			t.Errorf("%s: Err called %d times, want exactly %d (stop at the first done)", tc.name, ctx.calls, tc.n)
		}
	}
	// A count that is never cancelled polls along the way and still agrees.
	ctx := &doneAfter{Context: context.Background(), n: 1 << 30}
	got, err := CountContext(ctx, longRun)
	want, _ := Count(longRun)
	if err != nil || got != want || ctx.calls < 2 {
		t.Errorf("CountContext = %d, %v after %d polls; Count = %d", got, err, ctx.calls, want)
	}
}

// TestArraySharesToolPieces checks that the array is counted from its tools:
// on a list shaped like real ones, only the joins are scanned again.
func TestArraySharesToolPieces(t *testing.T) {
	names, items := toolList(2000)
	size := 0
	for _, it := range items {
		size += len(it)
	}
	d, own, err := ofTools(context.Background(), names, items)
	if err != nil {
		t.Fatal(err)
	}
	// Each join re-reads a few characters around "},{"; the rest is shared.
	if own > 16*len(items) {
		t.Errorf("the array scanned %d of %d bytes itself, want at most %d", own, size, 16*len(items))
	}
	joined := make([]string, len(items))
	for i, it := range items {
		joined[i] = string(it)
	}
	if want, _ := Count("[" + strings.Join(joined, ",") + "]"); d.Total != want {
		t.Errorf("total %d, Count of the array %d", d.Total, want)
	}
	t.Logf("array: %d of %d bytes scanned apart from the tools", own, size)
}
