//go:build e2e

package main

// Server cards, catalogs (SEP-2127) and events (SEP-3415) end to end:
// fixtures/cardserver serves a good card, catalog and events, and with
// -bug breaks one thing per check, which exactly that check catches; its
// hostile modes (a huge or deep card, a redirect to the metadata address,
// a body that never ends) end in a bounded run with a clear message; wire
// lists what it found.

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

func cardserverBinary(t *testing.T) string { return fixtureBin(t, "cardserver") }

// extensionVerdicts are a run's verdicts of the card, catalog and events
// checks that are not a pass or not applicable, as "era id outcome".
func extensionVerdicts(v gjson.Result) []string {
	var out []string
	for _, e := range v.Get("check.eras").Array() {
		for _, x := range e.Get("verdicts").Array() {
			id, o := x.Get("id").String(), x.Get("outcome").String()
			if o == "pass" || o == "not-applicable" {
				continue
			}
			if strings.HasPrefix(id, "server-card.") || strings.HasPrefix(id, "catalog.") || strings.HasPrefix(id, "events.") {
				out = append(out, e.Get("era").String()+" "+id+" "+o)
			}
		}
	}
	return out
}

func checkCardserver(t *testing.T, flags ...string) (gjson.Result, result) {
	t.Helper()
	u := serveOn(t, append([]string{cardserverBinary(t), "-http", "127.0.0.1:0"}, flags...)...)
	return checkJSON(t, "--skip-malformed", "--timeout", secs(2*time.Second), u)
}

// loopback plain http is observed in every run of the fixture.
var cardsHTTP = []string{"legacy server-card.https observed", "modern server-card.https observed"}

// Each bug of cardserver is caught by exactly the check that names it, with
// its clause's outcome (a MUST fails and exits 1; a SHOULD, or a sentence
// without a keyword, warns; what the text leaves open is observed).
func TestCheckCardsBreaks(t *testing.T) {
	t.Parallel()
	both := func(id, outcome string) []string {
		return []string{"legacy " + id + " " + outcome, "modern " + id + " " + outcome}
	}
	for _, tc := range []struct {
		flags []string
		want  []string
		code  int
	}{
		{nil, nil, 0},
		{[]string{"-old"}, both("server-card.media-type", "warn"), 0},
		{[]string{"-bug", "card-media-type"}, both("server-card.media-type", "warn"), 0},
		{[]string{"-bug", "card-no-cors"}, both("server-card.cors", "fail"), 1},
		{[]string{"-bug", "card-no-cache"}, both("server-card.cache", "warn"), 0},
		{[]string{"-bug", "card-no-304"}, both("server-card.cache", "warn"), 0},
		{[]string{"-bug", "card-contradicts"}, both("server-card.consistent", "warn"), 0},
		{[]string{"-bug", "card-shape"}, both("server-card.shape", "warn"), 0},
		{[]string{"-bug", "catalog-shape"}, both("catalog.shape", "warn"), 0},
		{[]string{"-bug", "catalog-entry"}, both("catalog.entries", "fail"), 1},
		{[]string{"-bug", "events-list"}, []string{"modern events.list-shape warn"}, 0},
		{[]string{"-bug", "events-poll"}, []string{"modern events.poll warn"}, 0},
		{[]string{"-bug", "events-poll-any"}, []string{"modern events.poll warn"}, 0},
		// not asked at all: a client MUST NOT send events/* undeclared
		{[]string{"-bug", "events-undeclared"}, nil, 0},
		{[]string{"-bug", "events-unserved"}, []string{"modern events.gating warn", "modern events.list-shape inconclusive", "modern events.poll inconclusive"}, 0},
	} {
		t.Run(strings.Join(append([]string{"good"}, tc.flags...), " "), func(t *testing.T) {
			t.Parallel()
			v, r := checkCardserver(t, tc.flags...)
			var got []string
			for _, f := range extensionVerdicts(v) {
				if !slices.Contains(cardsHTTP, f) {
					got = append(got, f)
				}
			}
			if r.code != tc.code || strings.Join(got, ", ") != strings.Join(tc.want, ", ") {
				t.Errorf("exit %d, flagged %q; want exit %d, %q\n%s", r.code, got, tc.code, tc.want, verdictLines(v))
			}
			if slices.Contains(tc.flags, "events-undeclared") {
				if o := v.Get(`check.eras.#(era=="modern").verdicts.#(id=="events.gating").outcome`).String(); o != "not-applicable" {
					t.Errorf("undeclared events: events.gating %s, want not-applicable", o)
				}
			}
			if tc.flags == nil {
				if n := v.Get("check.outcomes.fail").Int() + v.Get("check.outcomes.warn").Int(); n != 0 || len(extensionVerdicts(v)) != 2 {
					t.Errorf("the good server: %d fails and warns, %q\n%s", n, extensionVerdicts(v), verdictLines(v))
				}
				for _, id := range []string{"catalog.shape", "catalog.entries", "server-card.shape", "server-card.consistent", "events.gating", "events.list-shape", "events.poll"} {
					if o := v.Get(`check.eras.#(era=="modern").verdicts.#(id=="` + id + `").outcome`).String(); o != "pass" {
						t.Errorf("the good server: modern %s %s", id, o)
					}
				}
			}
		})
	}
}

// A contradiction names every value that differs, and -old says which
// shape each path serves.
func TestCheckCardsSay(t *testing.T) {
	t.Parallel()
	v, _ := checkCardserver(t, "-bug", "card-contradicts")
	why := v.Get(`check.eras.#(era=="modern").verdicts.#(id=="server-card.consistent").why`).String()
	for _, want := range []string{`version "9.9.9", the server says "1.2.0"`, `is of type "sse", the server speaks Streamable HTTP there`, "lists protocol version 2099-01-01"} {
		if !strings.Contains(why, want) {
			t.Errorf("consistent: %q lacks %q", why, want)
		}
	}
	v, _ = checkCardserver(t, "-old")
	why = v.Get(`check.eras.#(era=="legacy").verdicts.#(id=="server-card.shape").why`).String()
	if why != "<endpoint>/server-card: server-card v1; /.well-known/mcp/server-card.json: server-card (older)" {
		t.Errorf("shape: %q", why)
	}
	if got := v.Get(`check.eras.#(era=="legacy").verdicts.#(id=="catalog.shape").why`).String(); got != "/.well-known/ai-catalog.json: a catalog of 2 entries; /.well-known/mcp/catalog.json: a catalog of 2 entries" {
		t.Errorf("catalog: %q", got)
	}
	v, _ = checkCardserver(t, "-bug", "no-cards")
	for _, id := range []string{"catalog.shape", "server-card.shape", "server-card.consistent"} {
		if o := v.Get(`check.eras.#(era=="legacy").verdicts.#(id=="` + id + `").outcome`).String(); o != "not-applicable" {
			t.Errorf("no cards: %s %s", id, o)
		}
	}
}

// A hostile card ends in a bounded run: the card check says what the
// server did, the rest of the verdict stands, and wire --json keeps what
// was received within its bounds.
func TestCardsHostile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		bug  string
		why  string // server-card.shape's
		wire string // the endpoint card's error or derived problem in wire --json
	}{
		{"card-huge", "serves too large: the body is larger than 262144 bytes", "larger than 262144 bytes"},
		{"card-deep", "serves too deep: it nests 5000 levels deep", "nests 5000 levels deep"},
		{"card-redirect-metadata", "answered HTTP 302, but the card could not be had: mcpprobe does not fetch from 169.254.169.254:80", "does not fetch from 169.254.169.254"},
		{"card-slow", "answered HTTP 200, but the card could not be had: the body could not be read whole: no whole answer within", "no whole answer within"},
	} {
		t.Run(tc.bug, func(t *testing.T) {
			t.Parallel()
			v, r := checkCardserver(t, "-bug", tc.bug)
			x := v.Get(`check.eras.#(era=="legacy").verdicts.#(id=="server-card.shape")`)
			if r.code != 0 || x.Get("outcome").String() != "warn" || !strings.Contains(x.Get("why").String(), tc.why) {
				t.Errorf("exit %d, %s %q", r.code, x.Get("outcome"), x.Get("why"))
			}
			u := serveOn(t, cardserverBinary(t), "-http", "127.0.0.1:0", "-bug", tc.bug)
			w := mcpprobe(t, "wire", "--json", "--timeout", secs(2*time.Second), u)
			env := envelope(t, "wire", w.stdout)
			d := env.Get(`wire.cards.#(where=="<endpoint>/server-card")`)
			if w.code != 0 || !strings.Contains(d.Get("error").String()+d.Get("derived.problem").String(), tc.wire) || len(d.Get("body").String()) > 262144 {
				t.Errorf("wire: exit %d, %s", w.code, d.Raw[:min(len(d.Raw), 600)])
			}
		})
	}
}

// wire lists what the server publishes: each path, the shape it serves,
// the body as received.
func TestWireCards(t *testing.T) {
	t.Parallel()
	u := serveOn(t, cardserverBinary(t), "-http", "127.0.0.1:0", "-old")
	env := envelope(t, "wire", mcpprobe(t, "wire", "--json", u).stdout)
	var got []string
	for _, d := range env.Get("wire.cards").Array() {
		got = append(got, d.Get("where").String()+"="+d.Get("derived.shape").String())
	}
	want := "/.well-known/ai-catalog.json=catalog /.well-known/mcp/catalog.json=catalog <endpoint>/server-card=server-card v1 /.well-known/mcp/server-card.json=server-card (older)"
	if strings.Join(got, " ") != want {
		t.Errorf("cards\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	card := env.Get(`wire.cards.#(where=="<endpoint>/server-card")`)
	if !gjson.Valid(card.Get("body").String()) || card.Get("headers.access_control_allow_origin").String() != "*" || card.Get("derived.card.name").String() != "com.example/cardserver" {
		t.Errorf("card: %s", card.Raw)
	}
	text := mcpprobe(t, "wire", u)
	if !strings.Contains(text.stdout, "Server cards and catalogs (GET, no credentials):") || !strings.Contains(text.stdout, "/.well-known/mcp/server-card.json  server-card (older): cardserver 1.2.0") {
		t.Errorf("wire text:\n%s", text.stdout)
	}
	// Over stdio there is nowhere to look: no cards member.
	if env := wireJSON(t, bin.good); env.Get("wire.cards").Exists() {
		t.Errorf("stdio wire has cards: %s", env.Get("wire.cards").Raw)
	}
}
