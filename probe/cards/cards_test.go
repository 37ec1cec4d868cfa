package cards

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/netguard"
)

const goodCard = `{"$schema":"https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json","name":"com.example/s","version":"1.0.0","description":"d",` +
	`"remotes":[{"type":"streamable-http","url":"URL","supportedProtocolVersions":["2026-07-28"]}]}`

// serve starts a server whose /mcp/server-card (and any other path the
// handlers name) answers as given; everything else is 404.
func serve(t *testing.T, hs map[string]http.HandlerFunc) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	for p, h := range hs {
		mux.HandleFunc(p, h)
	}
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func doc(r *Result, where string) Doc {
	for _, d := range r.Docs {
		if d.Where == where {
			return d
		}
	}
	return Doc{}
}

func TestFetchCardPath(t *testing.T) {
	for _, tc := range []struct {
		name    string
		h       http.HandlerFunc
		shape   string
		problem string // a substring
		err     string // a substring
		cut     bool
	}{
		{"a good card", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", CardType)
			fmt.Fprint(w, goodCard)
		}, ShapeCard, "", "", false},
		{"a good card honouring If-None-Match", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", `"v1"`)
			if r.Header.Get("If-None-Match") == `"v1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			fmt.Fprint(w, goodCard)
		}, ShapeCard, "", "", false},
		{"a card missing its required members", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"name":"com.example/s","$schema":"https://example.com/x"}`)
		}, ShapeCard, "no version, no description; $schema is", "", false},
		{"a huge card", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"name":"`+strings.Repeat("x", MaxBody+10)+`"}`)
		}, ShapeTooLarge, "larger than", "", true},
		{"a deep card", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, strings.Repeat("[", 100000)+strings.Repeat("]", 100000))
		}, ShapeTooDeep, "nests 100000 levels", "", false},
		{"not JSON", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<html>") }, ShapeNotJSON, "not JSON", "", false},
		{"JSON but an array", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "[1]") }, ShapeOther, "not an object", "", false},
		{"a redirect to the metadata address", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		}, "", "", "does not fetch from 169.254.169.254", false},
		{"a redirect to a metadata name", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://metadata.google.internal/", http.StatusFound)
		}, "", "", "does not fetch from metadata.google.internal", false},
		{"a redirect loop", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.Path, http.StatusFound)
		}, "", "", "more than 3 redirects", false},
		{"a redirect to another scheme", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		}, "", "", "not an http(s) URL", false},
		{"a body that never ends", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"name":`)
			for {
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(20 * time.Millisecond):
				}
				if _, err := fmt.Fprint(w, " "); err != nil {
					return
				}
			}
		}, "", "", "no whole answer within", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := serve(t, map[string]http.HandlerFunc{"/mcp/server-card": tc.h})
			r := Fetch(context.Background(), Options{URL: s.URL + "/mcp", Timeout: 300 * time.Millisecond})
			d := doc(r, EndpointCard)
			if d.Shape != tc.shape || !strings.Contains(d.Problem, tc.problem) || !strings.Contains(d.Err, tc.err) || d.Cut != tc.cut {
				t.Errorf("shape %q problem %q err %q cut %v; want %q, %q, %q, %v", d.Shape, d.Problem, d.Err, d.Cut, tc.shape, tc.problem, tc.err, tc.cut)
			}
			if strings.Contains(tc.name, "If-None-Match") && d.Revalidated != 304 || !strings.Contains(tc.name, "If-None-Match") && d.Revalidated != 0 {
				t.Errorf("revalidated %d", d.Revalidated)
			}
			if len(d.Raw) > MaxBody {
				t.Errorf("kept %d bytes, past MaxBody", len(d.Raw))
			}
		})
	}
}

// The request carries no credentials and asks for the card's media type.
func TestFetchSendsNoCredentials(t *testing.T) {
	var mu sync.Mutex
	var got []http.Header
	s := serve(t, map[string]http.HandlerFunc{"/": func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Clone())
		mu.Unlock()
		http.NotFound(w, r)
	}})
	r := Fetch(context.Background(), Options{URL: s.URL + "/mcp", UserAgent: "mcpprobe-test"})
	if len(r.Docs) != 4 {
		t.Fatalf("%d documents, want the 4 fixed paths", len(r.Docs))
	}
	mu.Lock()
	defer mu.Unlock()
	for _, h := range got {
		for k := range h {
			if k != "Accept" && k != "User-Agent" {
				t.Errorf("sent header %s", k)
			}
		}
	}
	if d := doc(r, EndpointCard); d.Accept != CardType || d.URL != s.URL+"/mcp/server-card" || d.Found() {
		t.Errorf("endpoint card: %+v", d)
	}
}

// Each path is labelled with the shape it serves, the catalog's entries
// are fetched (once each, inline ones read in place), and the older card
// shape is read.
func TestFetchCatalogAndShapes(t *testing.T) {
	var s *httptest.Server
	s = serve(t, map[string]http.HandlerFunc{
		"/.well-known/ai-catalog.json": func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"specVersion":"1.0","entries":[{"identifier":"urn:air:a","type":%q,"url":%q},{"identifier":"urn:air:b","type":%q,"data":{"name":"com.example/inline","version":"2"}},`+
				`{"identifier":"urn:air:c","type":"application/a2a+json","url":"%s/agent"},{"type":%q,"url":"ftp://x","data":{}}]}`,
				CardType, s.URL+"/other/card", CardType, s.URL, CardType)
		},
		"/other/card": func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, strings.ReplaceAll(goodCard, "URL", s.URL+"/mcp"))
		},
		"/.well-known/mcp/server-card.json": func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"protocolVersion":"2025-06-18","serverInfo":{"name":"s","version":"1"},"transport":{"type":"streamable-http","endpoint":"/mcp"},"capabilities":{"tools":{},"prompts":{}}}`)
		},
	})
	r := Fetch(context.Background(), Options{URL: s.URL + "/mcp"})
	var shapes []string
	for _, d := range r.Docs {
		shapes = append(shapes, fmt.Sprintf("%s=%s", d.Where, d.Shape))
	}
	want := "/.well-known/ai-catalog.json=catalog /.well-known/mcp/catalog.json= <endpoint>/server-card= /.well-known/mcp/server-card.json=server-card (older) " +
		"/.well-known/ai-catalog.json entry 0=server-card v1 /.well-known/ai-catalog.json entry 1=server-card v1"
	if got := strings.Join(shapes, " "); got != want {
		t.Errorf("shapes\n got %s\nwant %s", got, want)
	}
	cat := doc(r, AICatalog)
	if len(cat.Entries) != 4 || cat.Entries[3].Problem != `no identifier; both url and data (exactly one of them is used)` {
		t.Errorf("entries: %+v", cat.Entries)
	}
	old := doc(r, WellKnown).Card
	if old == nil || !old.Older || old.Name != "s" || old.Protocol != "2025-06-18" || strings.Join(old.Capabilities, ",") != "prompts,tools" {
		t.Errorf("older card: %+v", old)
	}
	in := doc(r, AICatalog+" entry 1")
	if !in.Inline || string(in.Raw) != `{"name":"com.example/inline","version":"2"}` || in.Problem != "no $schema, no description" {
		t.Errorf("inline entry: %+v %s", in, in.Raw)
	}
}

// A catalog entry is fetched through netguard: a public target's catalog
// cannot make the probe fetch from this machine's network.
func TestFetchEntryGuarded(t *testing.T) {
	inside := serve(t, map[string]http.HandlerFunc{"/card": func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, goodCard) }})
	s := serve(t, map[string]http.HandlerFunc{"/.well-known/ai-catalog.json": func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"specVersion":"1.0","entries":[{"identifier":"urn:air:a","type":%q,"url":"%s/card"}]}`, CardType, inside.URL)
	}})
	target := netip.MustParseAddrPort(s.Listener.Addr().String())
	classify := func(ap netip.AddrPort) netguard.Class {
		if ap.Port() == target.Port() {
			return netguard.Public
		}
		return netguard.Loopback
	}
	r := Fetch(context.Background(), Options{URL: s.URL + "/mcp", Classify: classify})
	d := doc(r, AICatalog+" entry 0")
	if d.Found() || !strings.Contains(d.Err, "the target is public") {
		t.Errorf("entry: %+v", d)
	}
}

func TestFetchNotHTTP(t *testing.T) {
	if r := Fetch(context.Background(), Options{URL: "./server"}); r != nil {
		t.Errorf("a command target: %+v", r)
	}
}

func TestSameURL(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"http://H:1/mcp", "http://h:1/mcp/", true},
		{"http://h:1/mcp", "https://h:1/mcp", false},
		{"http://h:1/mcp", "http://h:1/other", false},
	} {
		if got := SameURL(c.a, c.b); got != c.want {
			t.Errorf("SameURL(%q, %q) = %v", c.a, c.b, got)
		}
	}
}

// A catalog of many entries costs at most MaxEntries fetches.
func TestFetchEntriesBounded(t *testing.T) {
	var mu sync.Mutex
	asked := 0
	var s *httptest.Server
	s = serve(t, map[string]http.HandlerFunc{
		"/.well-known/ai-catalog.json": func(w http.ResponseWriter, r *http.Request) {
			var es []string
			for i := 0; i < 50; i++ {
				es = append(es, fmt.Sprintf(`{"identifier":"urn:air:%d","type":%q,"url":"%s/c/%d"}`, i, CardType, s.URL, i))
			}
			fmt.Fprintf(w, `{"specVersion":"1.0","entries":[%s]}`, strings.Join(es, ","))
		},
		"/c/": func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			asked++
			mu.Unlock()
			fmt.Fprint(w, goodCard)
		},
	})
	r := Fetch(context.Background(), Options{URL: s.URL + "/mcp"})
	mu.Lock()
	defer mu.Unlock()
	if asked != MaxEntries || len(r.Docs) != 4+MaxEntries || len(doc(r, AICatalog).Entries) != 50 {
		t.Errorf("%d entry cards asked for, %d documents; want %d and %d", asked, len(r.Docs), MaxEntries, 4+MaxEntries)
	}
}
