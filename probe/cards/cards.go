// Package cards fetches what an HTTP MCP server publishes about itself
// before any session (SEP-2127's Server Cards, and the catalogs that point
// at them) the way a client would: a plain GET with no credentials, every
// dial judged by probe/netguard, every body bounded in size, depth and
// time. It keeps each answer's bytes as received and labels what it parses
// out of them as derived; probe/check judges them and probe/wire shows
// them. It imports only transport (for the shape of JSON) and netguard, so
// that both can use it without an analysis importing another.
package cards

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/netguard"
	"github.com/mcpprobe/mcpprobe/transport"
)

// The media types SEP-2127 names.
const (
	CardType    = "application/mcp-server-card+json"
	CatalogType = "application/ai-catalog+json"
)

// Bounds on what a server (or a catalog it names) can make the probe read.
const (
	// MaxBody is the most of one body read; a card is a few hundred bytes.
	MaxBody = 256 << 10
	// MaxDepth bounds how deep a card or catalog may nest before it is not
	// parsed: the v1 card nests five levels at most.
	MaxDepth = 64
	// MaxEntries is how many catalog entries' cards are fetched.
	MaxEntries = 8
	// MaxRedirects is how many redirects one fetch follows.
	MaxRedirects = 3
)

// Where a document was looked for. The first four are fixed paths; an
// entry's card is "catalog entry N".
const (
	AICatalog    = "/.well-known/ai-catalog.json"      // SEP-2127 since 2026-07-20
	MCPCatalog   = "/.well-known/mcp/catalog.json"     // SEP-2127 drafts, 2026-05 to 2026-07-20
	EndpointCard = "<endpoint>/server-card"            // the reserved location
	WellKnown    = "/.well-known/mcp/server-card.json" // the older shape seen in the wild
)

// Shapes a document can have (derived from its bytes).
const (
	ShapeCatalog   = "catalog"             // an object with entries
	ShapeCard      = "server-card v1"      // $schema, name, version, description
	ShapeOlderCard = "server-card (older)" // serverInfo / protocolVersion / transport, the first SEP-2127 drafts
	ShapeOther     = "other"               // JSON, but neither
	ShapeNotJSON   = "not JSON"
	ShapeTooLarge  = "too large"
	ShapeTooDeep   = "too deep"
)

// Options say what to fetch from and how.
type Options struct {
	URL       string // the MCP endpoint the user gave
	Timeout   time.Duration
	Insecure  bool
	UserAgent string
	// Classify replaces netguard's classifier (tests).
	Classify func(netip.AddrPort) netguard.Class
}

// Doc is one document looked for: what was sent, what came back as
// received, and what is derived from it.
type Doc struct {
	Where     string   // one of the constants above, or "catalog entry N"
	URL       string   // where it was asked for
	Accept    string   // the Accept header sent (no other header but User-Agent)
	Status    int      // 0 when nothing answered
	Redirects []string // each Location followed, in order
	// Headers the checks read, as received ("" when absent).
	ContentType, AllowOrigin, CacheControl, ETag string
	Raw                                          []byte // the body as received, at most MaxBody bytes
	Cut                                          bool   // the body was longer than MaxBody
	Inline                                       bool   // a catalog entry's data: no HTTP of its own
	Err                                          string // a refusal, a timeout, a transport error
	// Revalidated is the status of a second GET of a card with
	// If-None-Match: its ETag (0 when not asked: no ETag, not a card).
	Revalidated   int
	RevalidateErr string

	// Derived from Raw.
	Shape   string  // "" when nothing usable answered (see Found)
	Problem string  // why the document is not a well-formed one of its shape
	Card    *Card   // when a card (either shape)
	Entries []Entry // when a catalog
}

// Found reports whether the document is there: a 2xx answer with a body,
// or an inline entry.
func (d Doc) Found() bool { return d.Inline || d.Status >= 200 && d.Status < 300 && d.Err == "" }

// Broken reports whether the server answered (2xx, or a redirect) but the
// document could not be had whole: a body cut short or too slow, a
// redirect mcpprobe will not follow.
func (d Doc) Broken() bool { return !d.Inline && d.Err != "" && d.Status >= 200 && d.Status < 400 }

// IsCard reports whether the document is a card of either shape.
func (d Doc) IsCard() bool { return d.Card != nil }

// Card is what a card says, derived from its bytes.
type Card struct {
	Schema, Name, Version, Title, Description string
	Remotes                                   []Remote
	// The older shape: serverInfo, protocolVersion and capabilities.
	Older        bool
	Protocol     string
	Capabilities []string // declared capability names
}

// Remote is one of a card's remotes.
type Remote struct {
	Type     string
	URL      string
	Versions []string
}

// Entry is one catalog entry.
type Entry struct {
	Index      int
	Identifier string
	Type       string
	URL        string
	HasData    bool
	Problem    string // why it is not a well-formed card entry
}

// Result is every document looked for, in the order they were asked for.
type Result struct {
	Docs []Doc
}

// Cards are the documents that are cards, in order.
func (r *Result) Cards() []Doc {
	var out []Doc
	if r == nil {
		return nil
	}
	for _, d := range r.Docs {
		if d.Found() && d.IsCard() {
			out = append(out, d)
		}
	}
	return out
}

// Catalogs are the documents found at a catalog path.
func (r *Result) Catalogs() []Doc {
	var out []Doc
	if r == nil {
		return nil
	}
	for _, d := range r.Docs {
		if (d.Where == AICatalog || d.Where == MCPCatalog) && d.Found() {
			out = append(out, d)
		}
	}
	return out
}

// Fetch looks for the catalogs and cards of o.URL's server, then fetches
// the cards the catalogs' entries point at (at most MaxEntries). Nothing a
// server does makes it fail: each document says what happened to it. A URL
// that is not http(s) has nothing to look for (nil).
func Fetch(ctx context.Context, o Options) *Result {
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	g := &netguard.Guard{Target: o.URL, Classify: o.Classify}
	g.Prepare(ctx)
	tr := g.Transport(o.Timeout)
	if o.Insecure {
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // --insecure asks for it
	}
	defer tr.CloseIdleConnections()
	f := &fetcher{ctx: ctx, o: o, client: &http.Client{Transport: g.RoundTripper(tr), Timeout: o.Timeout,
		// Redirects are followed by hand, so that each hop is recorded
		// and bounded.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	origin := u.Scheme + "://" + u.Host
	endpoint := strings.TrimSuffix(u.Scheme+"://"+u.Host+u.EscapedPath(), "/")
	r := &Result{}
	// The fixed paths, then the catalogs' entries, are each asked for at
	// once, so that a server that never answers a GET costs the run one
	// --timeout per round, not one per path; the order they are kept in
	// is the order they are listed in, whatever answered first.
	r.Docs = f.all([]Doc{
		{Where: AICatalog, URL: origin + AICatalog, Accept: CatalogType + ", application/json"},
		{Where: MCPCatalog, URL: origin + MCPCatalog, Accept: CatalogType + ", application/json"},
		{Where: EndpointCard, URL: endpoint + "/server-card", Accept: CardType},
		{Where: WellKnown, URL: origin + WellKnown, Accept: CardType + ", application/json"},
	})
	seen := map[string]bool{}
	for _, d := range r.Docs {
		seen[d.URL] = true
	}
	var asks []Doc
	n := 0
	for _, c := range r.Catalogs() {
		for _, e := range c.Entries {
			if e.Type != CardType || e.Problem != "" || n >= MaxEntries {
				continue
			}
			where := fmt.Sprintf("%s entry %d", c.Where, e.Index)
			if e.HasData {
				n++
				d := Doc{Where: where, URL: c.URL, Inline: true, Raw: entryData(c.Raw, e.Index)}
				derive(&d)
				asks = append(asks, d)
				continue
			}
			if seen[e.URL] {
				continue
			}
			seen[e.URL] = true
			n++
			asks = append(asks, Doc{Where: where, URL: e.URL, Accept: CardType})
		}
	}
	r.Docs = append(r.Docs, f.all(asks)...)
	f.revalidate(r.Docs)
	return r
}

// revalidate asks again for each card answered with an ETag, with
// If-None-Match, as a client that cached it does: Revalidated is the
// status of that answer (304 when the host honours it).
func (f *fetcher) revalidate(docs []Doc) {
	var wg sync.WaitGroup
	for i := range docs {
		d := &docs[i]
		if d.Inline || !d.Found() || d.Card == nil || d.ETag == "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			target := d.URL
			if n := len(d.Redirects); n > 0 {
				target = d.Redirects[n-1]
			}
			resp, err := f.request(target, d.Accept, d.ETag)
			if err != nil {
				d.RevalidateErr = describe(err, f.o.Timeout)
				return
			}
			// What a 200 carries is the card again: not kept, only bounded.
			_, _, _ = read(resp.Body)
			resp.Body.Close()
			d.Revalidated = resp.StatusCode
		}()
	}
	wg.Wait()
}

// all asks for every document at once (an inline one is already had) and
// returns them in the order given.
func (f *fetcher) all(asks []Doc) []Doc {
	out := make([]Doc, len(asks))
	var wg sync.WaitGroup
	for i, a := range asks {
		if a.Inline {
			out[i] = a
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = f.get(a.Where, a.URL, a.Accept)
		}()
	}
	wg.Wait()
	return out
}

type fetcher struct {
	ctx    context.Context
	o      Options
	client *http.Client
}

// get asks for one document, following at most MaxRedirects redirects.
func (f *fetcher) get(where, target, accept string) Doc {
	d := Doc{Where: where, URL: target, Accept: accept}
	next := target
	for hop := 0; ; hop++ {
		resp, err := f.do(next, accept)
		if err != nil {
			d.Err = describe(err, f.o.Timeout)
			return d
		}
		loc := resp.Header.Get("Location")
		if resp.StatusCode >= 300 && resp.StatusCode < 400 && loc != "" {
			resp.Body.Close()
			// The redirect's status stays if the hop it names fails.
			d.Status = resp.StatusCode
			if hop >= MaxRedirects {
				d.Err = fmt.Sprintf("more than %d redirects: not followed further", MaxRedirects)
				return d
			}
			base, _ := url.Parse(next)
			to, perr := base.Parse(loc)
			if perr != nil || (to.Scheme != "http" && to.Scheme != "https") {
				d.Status = resp.StatusCode
				d.Err = fmt.Sprintf("a redirect to %q, which is not an http(s) URL", bounded(loc, 200))
				return d
			}
			d.Redirects = append(d.Redirects, to.String())
			next = to.String()
			continue
		}
		d.Status = resp.StatusCode
		h := resp.Header
		d.ContentType, d.AllowOrigin, d.CacheControl, d.ETag = h.Get("Content-Type"), h.Get("Access-Control-Allow-Origin"), h.Get("Cache-Control"), h.Get("ETag")
		body, cut, rerr := read(resp.Body)
		resp.Body.Close()
		d.Raw, d.Cut = body, cut
		if rerr != nil {
			d.Err = "the body could not be read whole: " + describe(rerr, f.o.Timeout)
			return d
		}
		if d.Found() {
			derive(&d)
		}
		return d
	}
}

func (f *fetcher) do(target, accept string) (*http.Response, error) {
	return f.request(target, accept, "")
}

func (f *fetcher) request(target, accept, etag string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(f.ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, err
	}
	// No credentials: a card is public, and the user's headers are for the
	// endpoint they named, not for whatever a catalog points at.
	req.Header.Set("Accept", accept)
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	if f.o.UserAgent != "" {
		req.Header.Set("User-Agent", f.o.UserAgent)
	}
	return f.client.Do(req)
}

// read reads at most MaxBody bytes of a body, saying whether there was more.
func read(r io.Reader) ([]byte, bool, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxBody+1))
	if len(b) > MaxBody {
		return b[:MaxBody], true, nil
	}
	return b, false, err
}

func describe(err error, timeout time.Duration) string {
	if r, ok := netguard.IsRefused(err); ok {
		return r.Error()
	}
	var ne interface{ Timeout() bool }
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return fmt.Sprintf("no whole answer within %s", timeout)
	}
	return bounded(err.Error(), 300)
}

func bounded(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// derive fills a found document's shape, problem, card and entries.
func derive(d *Doc) {
	switch depth, _ := transport.Shape(d.Raw); {
	case d.Cut:
		d.Shape, d.Problem = ShapeTooLarge, fmt.Sprintf("the body is larger than %d bytes: not read further", MaxBody)
		return
	case depth > MaxDepth:
		d.Shape, d.Problem = ShapeTooDeep, fmt.Sprintf("it nests %d levels deep, past the %d a card or catalog needs: not parsed", depth, MaxDepth)
		return
	}
	var v any
	if err := json.Unmarshal(d.Raw, &v); err != nil {
		d.Shape, d.Problem = ShapeNotJSON, "not JSON: "+bounded(err.Error(), 120)
		return
	}
	m, ok := v.(map[string]any)
	if !ok {
		d.Shape, d.Problem = ShapeOther, "JSON, but not an object"
		return
	}
	_, hasEntries := m["entries"]
	_, hasInfo := m["serverInfo"]
	_, hasName := m["name"]
	switch {
	case hasEntries || d.Where == AICatalog || d.Where == MCPCatalog:
		d.Shape = ShapeCatalog
		d.Entries, d.Problem = catalog(m)
	case hasInfo:
		d.Shape = ShapeOlderCard
		d.Card = older(m)
	case hasName || strings.Contains(str(m, "$schema"), "server-card"):
		d.Shape = ShapeCard
		d.Card, d.Problem = card(m)
	default:
		d.Shape, d.Problem = ShapeOther, "an object with neither entries (a catalog) nor name (a card) nor serverInfo (an older card)"
	}
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// catalog reads a catalog's entries; the problem is the catalog's own
// (no entries array, no specVersion).
func catalog(m map[string]any) ([]Entry, string) {
	var miss []string
	if _, ok := m["specVersion"].(string); !ok {
		miss = append(miss, "specVersion (a string)")
	}
	es, ok := m["entries"].([]any)
	if !ok {
		miss = append(miss, "entries (an array)")
	}
	var out []Entry
	for i, e := range es {
		en := Entry{Index: i}
		em, ok := e.(map[string]any)
		if !ok {
			en.Problem = "not an object"
			out = append(out, en)
			continue
		}
		en.Identifier, en.Type, en.URL = str(em, "identifier"), str(em, "type"), str(em, "url")
		_, en.HasData = em["data"]
		_, hasURL := em["url"]
		var bad []string
		if en.Identifier == "" {
			bad = append(bad, "no identifier")
		}
		if en.Type == "" {
			if mt := str(em, "mediaType"); mt != "" {
				bad = append(bad, fmt.Sprintf("no type (mediaType %q is the field's name before 2026-07-13)", mt))
			} else {
				bad = append(bad, "no type")
			}
		}
		switch {
		case hasURL && en.HasData:
			bad = append(bad, "both url and data (exactly one of them is used)")
		case !hasURL && !en.HasData:
			bad = append(bad, "neither url nor data")
		case hasURL:
			if p, err := url.Parse(en.URL); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
				bad = append(bad, fmt.Sprintf("url %q is not an http(s) URL", bounded(en.URL, 120)))
			}
		case en.HasData:
			if _, ok := em["data"].(map[string]any); !ok {
				bad = append(bad, "data is not an object")
			}
		}
		en.Problem = strings.Join(bad, "; ")
		out = append(out, en)
	}
	if len(miss) > 0 {
		return out, "no " + strings.Join(miss, ", no ")
	}
	return out, ""
}

// entryData is the raw bytes of entries[i].data, as the catalog holds them.
func entryData(raw []byte, i int) []byte {
	var c struct {
		Entries []struct {
			Data json.RawMessage `json:"data"`
		} `json:"entries"`
	}
	if json.Unmarshal(raw, &c) != nil || i >= len(c.Entries) {
		return nil
	}
	return bytes.Clone(c.Entries[i].Data)
}

// card reads a v1 card; the problem names the required members missing
// (schema.ts: $schema, name, version, description).
func card(m map[string]any) (*Card, string) {
	c := &Card{Schema: str(m, "$schema"), Name: str(m, "name"), Version: str(m, "version"),
		Title: str(m, "title"), Description: str(m, "description")}
	if rs, ok := m["remotes"].([]any); ok {
		for _, r := range rs {
			rm, _ := r.(map[string]any)
			if rm == nil {
				continue
			}
			re := Remote{Type: str(rm, "type"), URL: str(rm, "url")}
			if vs, ok := rm["supportedProtocolVersions"].([]any); ok {
				for _, v := range vs {
					if s, ok := v.(string); ok {
						re.Versions = append(re.Versions, s)
					}
				}
			}
			c.Remotes = append(c.Remotes, re)
		}
	}
	var miss []string
	for _, k := range []string{"$schema", "name", "version", "description"} {
		if str(m, k) == "" {
			miss = append(miss, k)
		}
	}
	var bad []string
	if len(miss) > 0 {
		bad = append(bad, "no "+strings.Join(miss, ", no "))
	}
	if c.Schema != "" && c.Schema != SchemaV1 {
		bad = append(bad, fmt.Sprintf("$schema is %q, not %s", bounded(c.Schema, 120), SchemaV1))
	}
	if _, ok := m["remotes"]; ok && !isArray(m["remotes"]) {
		bad = append(bad, "remotes is not an array")
	}
	return c, strings.Join(bad, "; ")
}

// SchemaV1 is the one $schema a v1 card may carry.
const SchemaV1 = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"

func isArray(v any) bool {
	_, ok := v.([]any)
	return ok
}

// older reads the first drafts' shape: serverInfo {name, version},
// protocolVersion, transport {type, endpoint}, capabilities.
func older(m map[string]any) *Card {
	c := &Card{Older: true, Schema: str(m, "$schema"), Protocol: str(m, "protocolVersion"), Description: str(m, "description")}
	if si, ok := m["serverInfo"].(map[string]any); ok {
		c.Name, c.Version, c.Title = str(si, "name"), str(si, "version"), str(si, "title")
	}
	if t, ok := m["transport"].(map[string]any); ok {
		r := Remote{Type: str(t, "type"), URL: str(t, "endpoint")}
		if r.URL == "" {
			r.URL = str(t, "url")
		}
		if c.Protocol != "" {
			r.Versions = []string{c.Protocol}
		}
		c.Remotes = append(c.Remotes, r)
	}
	if caps, ok := m["capabilities"].(map[string]any); ok {
		for k := range caps {
			c.Capabilities = append(c.Capabilities, k)
		}
		slices.Sort(c.Capabilities)
	}
	return c
}

// SameURL reports whether two endpoint URLs name the same endpoint: the
// scheme and host compared without case, a trailing slash ignored.
func SameURL(a, b string) bool {
	pa, ea := url.Parse(a)
	pb, eb := url.Parse(b)
	if ea != nil || eb != nil {
		return false
	}
	return strings.EqualFold(pa.Scheme, pb.Scheme) && strings.EqualFold(pa.Host, pb.Host) &&
		strings.TrimSuffix(pa.EscapedPath(), "/") == strings.TrimSuffix(pb.EscapedPath(), "/")
}
