package check

import (
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/cards"
)

func hostedCard(where, u string, c *cards.Card) cards.Doc {
	return cards.Doc{Where: where, URL: u, Status: 200, ContentType: cards.CardType, AllowOrigin: "*",
		CacheControl: "public, max-age=3600", ETag: `"1"`, Shape: cards.ShapeCard, Card: c, Raw: []byte(`{}`)}
}

var liveCards = Live{URL: "https://mcp.example.com/mcp", Mode: "streamable", ServerInfo: []byte(`{"name":"weather","version":"1.0.0"}`),
	Capabilities: []byte(`{"tools":{}}`), Protocol: v2, Supported: []string{v2, v1}}

func goodCardDoc() cards.Doc {
	return hostedCard(cards.EndpointCard, "https://mcp.example.com/mcp/server-card", &cards.Card{Name: "com.example/weather", Version: "1.0.0",
		Remotes: []cards.Remote{{Type: "streamable-http", URL: "https://mcp.example.com/mcp", Versions: []string{v2}}}})
}

func byID(vs []Verdict) map[string]Verdict {
	m := map[string]Verdict{}
	for _, v := range vs {
		m[v.ID] = v
	}
	return m
}

func TestJudgeCards(t *testing.T) {
	for _, tc := range []struct {
		name    string
		docs    func() []cards.Doc
		live    Live
		id      string
		outcome string
		why     string // a substring
	}{
		{"no card anywhere is not applicable", func() []cards.Doc {
			return []cards.Doc{{Where: cards.EndpointCard, Status: 404}, {Where: cards.WellKnown, Status: 404}}
		}, liveCards, IDCardConsistent, NotApplicable, "no server card: <endpoint>/server-card HTTP 404"},
		{"a good card passes", func() []cards.Doc { return []cards.Doc{goodCardDoc()} }, liveCards, IDCardConsistent, Pass, `name "weather"`},
		{"a media type with parameters passes", func() []cards.Doc {
			d := goodCardDoc()
			d.ContentType = cards.CardType + "; charset=utf-8"
			return []cards.Doc{d}
		}, liveCards, IDCardMediaType, Pass, ""},
		{"application/json warns", func() []cards.Doc {
			d := goodCardDoc()
			d.ContentType = "application/json"
			return []cards.Doc{d}
		}, liveCards, IDCardMediaType, Warn, "Content-Type application/json"},
		{"an allow-origin other than * fails", func() []cards.Doc {
			d := goodCardDoc()
			d.AllowOrigin = "https://example.com"
			return []cards.Doc{d}
		}, liveCards, IDCardCORS, Fail, "Access-Control-Allow-Origin: https://example.com"},
		{"no ETag warns", func() []cards.Doc {
			d := goodCardDoc()
			d.ETag = ""
			return []cards.Doc{d}
		}, liveCards, IDCardCache, Warn, "no ETag"},
		{"an ETag not honoured warns", func() []cards.Doc {
			d := goodCardDoc()
			d.Revalidated = 200
			return []cards.Doc{d}
		}, liveCards, IDCardCache, Warn, `a GET with If-None-Match: "1" (its own ETag) answered 200, not 304 Not Modified`},
		{"an ETag honoured passes", func() []cards.Doc {
			d := goodCardDoc()
			d.Revalidated = 304
			return []cards.Doc{d}
		}, liveCards, IDCardCache, Pass, ""},
		{"plain http off this machine fails", func() []cards.Doc {
			d := goodCardDoc()
			d.URL = "http://mcp.example.com/mcp/server-card"
			return []cards.Doc{d}
		}, liveCards, IDCardHTTPS, Fail, "not this machine"},
		{"an https card redirected to plain http fails", func() []cards.Doc {
			d := goodCardDoc()
			d.Redirects = []string{"http://cdn.example.com/card"}
			return []cards.Doc{d}
		}, liveCards, IDCardHTTPS, Fail, "http://cdn.example.com/card"},
		{"plain http on loopback is observed", func() []cards.Doc {
			d := goodCardDoc()
			d.URL = "http://127.0.0.1:8080/mcp/server-card"
			return []cards.Doc{d}
		}, liveCards, IDCardHTTPS, Observed, "loopback"},
		{"every contradiction is named", func() []cards.Doc {
			d := goodCardDoc()
			d.Card.Name, d.Card.Version, d.Card.Title = "com.example/rain", "2.0.0", "Rain"
			d.Card.Remotes = []cards.Remote{{Type: "sse", URL: "https://mcp.example.com/mcp/", Versions: []string{"2099-01-01"}}}
			return []cards.Doc{d}
		}, Live{URL: liveCards.URL, Mode: "streamable", ServerInfo: []byte(`{"name":"weather","version":"1.0.0","title":"Weather"}`), Supported: []string{v2}},
			IDCardConsistent, Warn, `name "com.example/rain", the server calls itself "weather"; <endpoint>/server-card: version "2.0.0", the server says "1.0.0"; <endpoint>/server-card: title "Rain", the server says "Weather"; <endpoint>/server-card: remote https://mcp.example.com/mcp/ is of type "sse", the server speaks Streamable HTTP there; <endpoint>/server-card: remote https://mcp.example.com/mcp/ lists protocol version 2099-01-01`},
		{"an older card's capability the server lacks", func() []cards.Doc {
			d := goodCardDoc()
			d.Shape, d.Card = cards.ShapeOlderCard, &cards.Card{Older: true, Name: "weather", Version: "1.0.0", Capabilities: []string{"prompts", "tools"}, Protocol: "2025-06-18",
				Remotes: []cards.Remote{{Type: "streamable-http", URL: liveCards.URL, Versions: []string{"2025-06-18"}}}}
			return []cards.Doc{d}
		}, Live{URL: liveCards.URL, Mode: "streamable", ServerInfo: liveCards.ServerInfo, Capabilities: []byte(`{"tools":{}}`), Protocol: v1},
			IDCardConsistent, Warn, "declares capability prompts, which the server does not; <endpoint>/server-card: protocolVersion 2025-06-18, the server negotiated 2025-11-25"},
		{"only the older shape is observed", func() []cards.Doc {
			d := goodCardDoc()
			d.Where, d.Shape, d.Card = cards.WellKnown, cards.ShapeOlderCard, &cards.Card{Older: true, Name: "weather"}
			return []cards.Doc{d}
		}, liveCards, IDCardShape, Observed, "only the older shape"},
		{"a card path that redirected to a refused address warns", func() []cards.Doc {
			return []cards.Doc{{Where: cards.EndpointCard, Status: 302, Err: "mcpprobe does not fetch from 169.254.169.254:80"}}
		}, liveCards, IDCardShape, Warn, "answered HTTP 302, but the card could not be had"},
		{"a catalog's card of another server is not compared", func() []cards.Doc {
			d := goodCardDoc()
			d.Where, d.Card.Name, d.Card.Version = cards.AICatalog+" entry 1", "com.example/other", "9"
			d.Card.Remotes = []cards.Remote{{Type: "streamable-http", URL: "https://other.example.com/mcp"}}
			return []cards.Doc{goodCardDoc(), d}
		}, liveCards, IDCardConsistent, Pass, "1 cards agree with the live connection (name \"weather\", version \"1.0.0\"); /.well-known/ai-catalog.json entry 1 describes another endpoint (https://other.example.com/mcp), not compared"},
		{"an older card's relative endpoint is this one", func() []cards.Doc {
			d := goodCardDoc()
			d.Where, d.Shape = cards.WellKnown, cards.ShapeOlderCard
			d.Card = &cards.Card{Older: true, Name: "weather", Version: "0.9", Remotes: []cards.Remote{{Type: "streamable-http", URL: "/mcp"}}}
			return []cards.Doc{d}
		}, liveCards, IDCardConsistent, Warn, `version "0.9", the server says "1.0.0"`},
		{"the endpoint's card naming another URL", func() []cards.Doc {
			d := goodCardDoc()
			d.Card.Remotes = []cards.Remote{{Type: "streamable-http", URL: "https://old.example.com/mcp"}}
			return []cards.Doc{d}
		}, liveCards, IDCardConsistent, Warn, "its remotes (https://old.example.com/mcp) do not include the endpoint it is served at, https://mcp.example.com/mcp"},
		{"a malformed entry fails", func() []cards.Doc {
			return []cards.Doc{{Where: cards.AICatalog, Status: 200, Shape: cards.ShapeCatalog, Raw: []byte(`{}`),
				Entries: []cards.Entry{{Index: 0, Type: cards.CardType, Problem: "no identifier"}, {Index: 1, Type: "application/a2a+json", Problem: "no identifier"}}}}
		}, liveCards, IDCatalogEntries, Fail, "/.well-known/ai-catalog.json entry 0: no identifier"},
		{"the older catalog path's missing members fail", func() []cards.Doc {
			return []cards.Doc{{Where: cards.MCPCatalog, Status: 200, Shape: cards.ShapeCatalog, Problem: "no specVersion (a string)", Raw: []byte(`{"entries":[]}`)}}
		}, liveCards, IDCatalogShape, Fail, "no specVersion"},
		{"the AI Catalog's missing members warn", func() []cards.Doc {
			return []cards.Doc{{Where: cards.AICatalog, Status: 200, Shape: cards.ShapeCatalog, Problem: "no specVersion (a string)", Raw: []byte(`{"entries":[]}`)}}
		}, liveCards, IDCatalogShape, Warn, "no specVersion"},
		{"a catalog of other artifacts only", func() []cards.Doc {
			return []cards.Doc{{Where: cards.AICatalog, Status: 200, Shape: cards.ShapeCatalog, Raw: []byte(`{}`), Entries: []cards.Entry{{Type: "application/a2a+json"}}}}
		}, liveCards, IDCatalogEntries, NotApplicable, "no server-card entry (1 of other types)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, era := range Eras {
				if tc.live.Protocol == v1 && era == Modern || strings.Contains(tc.why, "lists protocol version") && era == Legacy {
					continue // a legacy handshake has no supportedVersions; a modern one negotiated no legacy version
				}
				vs := JudgeCards(era, &cards.Result{Docs: tc.docs()}, tc.live)
				if len(vs) != len(CardChecks()) {
					t.Fatalf("%d verdicts, want one per check (%d)", len(vs), len(CardChecks()))
				}
				v := byID(vs)[tc.id]
				if v.Outcome != tc.outcome || !strings.Contains(v.Why, tc.why) {
					t.Errorf("%s %s: %s %q; want %s containing %q", era, tc.id, v.Outcome, v.Why, tc.outcome, tc.why)
				}
				if v.Outcome != NotApplicable && v.Clause == nil {
					t.Errorf("%s %s: no clause", era, tc.id)
				}
			}
		})
	}
}

func TestJudgeCardsStdio(t *testing.T) {
	for _, v := range JudgeCards(Legacy, nil, Live{}) {
		if v.Outcome != NotApplicable {
			t.Errorf("%s: %s", v.ID, v.Outcome)
		}
	}
}
