package check

// Server cards and catalogs (SEP-2127): what an HTTP server publishes
// about itself before any session, fetched once per run by probe/cards the
// way a client would, and judged in each era against what that era's
// handshake said. No card anywhere is not applicable, never a failure.

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/mcpprobe/mcpprobe/probe/cards"
	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/tidwall/gjson"
)

// The text these checks rest on: the extension's docs/discovery.md and
// schema.ts at modelcontextprotocol/experimental-ext-server-card commit
// 8924e08 (2026-07-24), and for the older catalog path the same file at
// 3b2d974 (2026-07-13), the last text that named it.
const (
	cardRev       = "SEP-2127 draft (2026-07-24)"
	cardDoc       = "https://github.com/modelcontextprotocol/experimental-ext-server-card/blob/8924e08682b4a936e6464b57845ec2ff17dc8776/"
	oldCatalogRev = "SEP-2127 draft (2026-07-13)"
	oldCatalogDoc = "https://github.com/modelcontextprotocol/experimental-ext-server-card/blob/3b2d974dbbc1bcf899e0ed2ef49a91758853c9a6/docs/discovery.md"
)

var (
	catalogShapeOld = &Clause{Version: oldCatalogRev, URL: oldCatalogDoc + "#catalog-format", Keyword: "MUST", Binds: "server",
		Text: "An MCP Catalog document is a JSON object that MUST contain the following members: `specVersion` (string), `entries` (array; MAY be empty). It should live at /.well-known/mcp/catalog.json"}
	catalogShape = &Clause{Version: cardRev, URL: cardDoc + "docs/discovery.md#ai-catalog", Keyword: "", Binds: "server",
		Text: "An AI Catalog is a JSON document published by an organization to advertise AI artifacts […] hosts MAY publish one at /.well-known/ai-catalog.json (its format is the AI Catalog specification's: specVersion, entries)"}
	catalogEntries = &Clause{Version: cardRev, URL: cardDoc + "docs/discovery.md#server-card-entries", Keyword: "MUST", Binds: "server",
		Text: "An entry for an MCP Server Card has: `identifier` (required), `type` (required) MUST be `application/mcp-server-card+json`, `url` or `data`: exactly one of `url` or `data` is used"}
	cardShape = &Clause{Version: cardRev, URL: cardDoc + "schema.ts", Keyword: "", Binds: "server",
		Text: "schema.ts: `ServerCard` has `$schema: string` (\"Required\", the v1 URL), `name: string`, `version: string`, `description: string`; README: the `$schema` field on every document MUST be https://static.modelcontextprotocol.io/schemas/v1/<name>.schema.json"}
	cardMediaType = &Clause{Version: cardRev, URL: cardDoc + "docs/discovery.md#hosted-server-card-location", Keyword: "SHOULD", Binds: "server",
		Text: "MCP Servers SHOULD respect the `application/mcp-server-card+json` media type wherever they choose to host it. […] the server echoes the negotiated type back in the response `Content-Type`"}
	cardCORS = &Clause{Version: cardRev, URL: cardDoc + "docs/discovery.md#cors-requirements", Keyword: "MUST", Binds: "server",
		Text: "Hosted Server Card endpoints MUST include appropriate CORS headers to allow browser-based clients: `Access-Control-Allow-Origin: *` […]"}
	cardCache = &Clause{Version: cardRev, URL: cardDoc + "docs/discovery.md#caching", Keyword: "SHOULD", Binds: "server",
		Text: "Server Card hosts SHOULD include caching headers to reduce unnecessary requests: `Cache-Control: public, max-age=3600`. Hosts SHOULD also return an `ETag` response header. […] Hosts SHOULD honor `If-None-Match` and return `304 Not Modified` when the selected representation has not changed."}
	cardHTTPS = &Clause{Version: cardRev, URL: cardDoc + "docs/discovery.md#transport-security", Keyword: "MUST", Binds: "server",
		Text: "Hosted Server Cards MUST be served over HTTPS (TLS 1.2 or later) in production. HTTP MAY be used for local development only."}
	cardConsistent = &Clause{Version: cardRev, URL: cardDoc + "docs/discovery.md#consistency-with-runtime-behavior", Keyword: "SHOULD NOT", Binds: "server",
		Text: "the values a client observes once connected — the `serverInfo` (`name`, `version`) and `supportedVersions` from `server/discover`, the transport served at each `remotes[]` endpoint, and descriptive fields (`title`, `description`, `icons`) — SHOULD NOT contradict the equivalent values declared in the Server Card"}
)

// The ids of the card checks.
const (
	IDCatalogShape   = "catalog.shape"
	IDCatalogEntries = "catalog.entries"
	IDCardShape      = "server-card.shape"
	IDCardMediaType  = "server-card.media-type"
	IDCardCORS       = "server-card.cors"
	IDCardCache      = "server-card.cache"
	IDCardHTTPS      = "server-card.https"
	IDCardConsistent = "server-card.consistent"
)

// CardChecks are the SEP-2127 checks; they follow the transport's.
var CardChecks = sync.OnceValue(func() []Check {
	return []Check{
		{ID: IDCatalogShape, Title: "a catalog at /.well-known/ai-catalog.json or /.well-known/mcp/catalog.json is an object with specVersion and entries", Eras: both, Transports: httpOnly,
			Clauses: map[string]*Clause{Legacy: catalogShape, Modern: catalogShape}},
		{ID: IDCatalogEntries, Title: "each server-card entry of a catalog has identifier, type application/mcp-server-card+json and exactly one of url or data", Eras: both, Transports: httpOnly,
			Clauses: map[string]*Clause{Legacy: catalogEntries, Modern: catalogEntries}},
		{ID: IDCardShape, Title: "each server card found has $schema (v1), name, version and description", Eras: both, Transports: httpOnly,
			Clauses: map[string]*Clause{Legacy: cardShape, Modern: cardShape}},
		{ID: IDCardMediaType, Title: "each hosted server card is served as application/mcp-server-card+json", Eras: both, Transports: httpOnly,
			Clauses: map[string]*Clause{Legacy: cardMediaType, Modern: cardMediaType}},
		{ID: IDCardCORS, Title: "each hosted server card carries Access-Control-Allow-Origin: *", Eras: both, Transports: httpOnly,
			Clauses: map[string]*Clause{Legacy: cardCORS, Modern: cardCORS}},
		{ID: IDCardCache, Title: "each hosted server card carries Cache-Control and an ETag, and answers If-None-Match of it 304", Eras: both, Transports: httpOnly,
			Clauses: map[string]*Clause{Legacy: cardCache, Modern: cardCache}},
		{ID: IDCardHTTPS, Title: "each hosted server card is served over https (plain http on loopback is observed)", Eras: both, Transports: httpOnly,
			Clauses: map[string]*Clause{Legacy: cardHTTPS, Modern: cardHTTPS}},
		{ID: IDCardConsistent, Title: "no server card contradicts the live connection (name, version, title, protocol versions, transport, capabilities)", Eras: both, Transports: httpOnly,
			Clauses: map[string]*Clause{Legacy: cardConsistent, Modern: cardConsistent}},
	}
})

// Live is what an era's connection said, for the consistency check.
type Live struct {
	URL          string // the endpoint the user gave
	Mode         string // "streamable" or "sse"
	ServerInfo   []byte
	Capabilities []byte
	Protocol     string   // negotiated
	Supported    []string // server/discover's supportedVersions (modern)
}

// cardsNA is every card check, not applicable.
func cardsNA(era, why string) []Verdict {
	var out []Verdict
	for _, c := range CardChecks() {
		out = append(out, notApplicable(c.ID, era, why))
	}
	return out
}

// JudgeCards judges what probe/cards found, in one era.
func JudgeCards(era string, r *cards.Result, live Live) []Verdict {
	if r == nil {
		return cardsNA(era, "the target is not an http(s) URL: there is nowhere to look for a card")
	}
	return []Verdict{
		judgeCatalogShape(era, r), judgeCatalogEntries(era, r), judgeCardShape(era, r),
		judgeCardHeader(era, r, IDCardMediaType, cardMediaType, mediaTypeOK),
		judgeCardHeader(era, r, IDCardCORS, cardCORS, corsOK),
		judgeCardHeader(era, r, IDCardCache, cardCache, cacheOK),
		judgeCardHTTPS(era, r),
		JudgeConsistent(era, r, live),
	}
}

// tried says where nothing was found: each fixed path and its answer.
func tried(r *cards.Result, wheres ...string) string {
	var parts []string
	for _, d := range r.Docs {
		if !slices.Contains(wheres, d.Where) {
			continue
		}
		parts = append(parts, d.Where+" "+answered(d))
	}
	return strings.Join(parts, ", ")
}

// answered is what a document's request got, short.
func answered(d cards.Doc) string {
	switch {
	case d.Inline:
		return "(inline in its catalog)"
	case d.Err != "" && d.Status == 0:
		return "(" + d.Err + ")"
	case d.Err != "":
		return fmt.Sprintf("(HTTP %d, %s)", d.Status, d.Err)
	}
	s := fmt.Sprintf("HTTP %d", d.Status)
	if d.ContentType != "" && d.Found() {
		s += " " + d.ContentType
	}
	return s
}

func docVerdict(id, era string, c *Clause, outcome string, d cards.Doc, why string) Verdict {
	got := answered(d)
	if len(d.Raw) > 0 {
		got += ": " + string(d.Raw)
	}
	return Verdict{ID: id, Era: era, Clause: c, Outcome: outcome, Sent: bound("GET " + d.URL + " (Accept: " + d.Accept + ", no credentials)"), Got: bound(got), Why: why}
}

func judgeCatalogShape(era string, r *cards.Result) Verdict {
	cs := r.Catalogs()
	if len(cs) == 0 {
		return notApplicable(IDCatalogShape, era, "no catalog: "+tried(r, cards.AICatalog, cards.MCPCatalog))
	}
	for _, d := range cs {
		c := catalogShape
		outcome := Warn
		if d.Where == cards.MCPCatalog {
			c, outcome = catalogShapeOld, Fail
		}
		if d.Problem != "" {
			return docVerdict(IDCatalogShape, era, c, outcome, d, fmt.Sprintf("%s serves %s: %s", d.Where, d.Shape, d.Problem))
		}
	}
	var says []string
	for _, d := range cs {
		says = append(says, fmt.Sprintf("%s: a catalog of %d entries", d.Where, len(d.Entries)))
	}
	return docVerdict(IDCatalogShape, era, shapeClauseOf(cs[0]), Pass, cs[0], strings.Join(says, "; "))
}

func shapeClauseOf(d cards.Doc) *Clause {
	if d.Where == cards.MCPCatalog {
		return catalogShapeOld
	}
	return catalogShape
}

func judgeCatalogEntries(era string, r *cards.Result) Verdict {
	var bad []string
	var first *cards.Doc
	n, other := 0, 0
	for _, d := range r.Catalogs() {
		for _, e := range d.Entries {
			// An AI Catalog advertises other artifacts too: an entry of
			// another type is not MCP's to judge, unless it carries no
			// type at all.
			if e.Type != "" && e.Type != cards.CardType {
				other++
				continue
			}
			n++
			if e.Problem != "" {
				bad = append(bad, fmt.Sprintf("%s entry %d: %s", d.Where, e.Index, e.Problem))
				if first == nil {
					dd := d
					first = &dd
				}
			}
		}
	}
	switch {
	case len(r.Catalogs()) == 0:
		return notApplicable(IDCatalogEntries, era, "no catalog, so no entries")
	case first != nil:
		return docVerdict(IDCatalogEntries, era, catalogEntries, Fail, *first, strings.Join(bad, "; "))
	case n == 0:
		return notApplicable(IDCatalogEntries, era, fmt.Sprintf("the catalog has no server-card entry (%d of other types)", other))
	}
	return docVerdict(IDCatalogEntries, era, catalogEntries, Pass, r.Catalogs()[0], fmt.Sprintf("%d server-card entries, each with identifier, type and one of url or data", n))
}

// noCard is the verdict of a card check when no card was found anywhere.
func noCard(id, era string, r *cards.Result) Verdict {
	return notApplicable(id, era, "no server card: "+tried(r, cards.EndpointCard, cards.WellKnown)+"; no catalog entry pointed at one")
}

func judgeCardShape(era string, r *cards.Result) Verdict {
	for _, d := range r.Docs {
		if atCardPath(d) && d.Broken() {
			return docVerdict(IDCardShape, era, cardShape, Warn, d, fmt.Sprintf("%s answered HTTP %d, but the card could not be had: %s", d.Where, d.Status, d.Err))
		}
	}
	docs := cardDocs(r)
	if len(docs) == 0 {
		return noCard(IDCardShape, era, r)
	}
	var older []string
	for _, d := range docs {
		if d.Problem != "" {
			return docVerdict(IDCardShape, era, cardShape, Warn, d, fmt.Sprintf("%s serves %s: %s", d.Where, d.Shape, d.Problem))
		}
		if d.Card != nil && d.Card.Older {
			older = append(older, d.Where)
		}
	}
	if len(older) == len(docs) {
		return docVerdict(IDCardShape, era, cardShape, Observed, docs[0], "only the older shape (serverInfo, protocolVersion, transport) of the first SEP-2127 drafts, at "+strings.Join(older, ", ")+"; the v1 card has $schema, name, version, description")
	}
	var says []string
	for _, d := range docs {
		says = append(says, d.Where+": "+d.Shape)
	}
	return docVerdict(IDCardShape, era, cardShape, Pass, docs[0], strings.Join(says, "; "))
}

// atCardPath: the document was asked for as a card (not a catalog).
func atCardPath(d cards.Doc) bool { return d.Where != cards.AICatalog && d.Where != cards.MCPCatalog }

// cardDocs are the documents found where a card was asked for: the cards,
// and what is not one there (not JSON, too large, too deep), which
// server-card.shape judges too.
func cardDocs(r *cards.Result) []cards.Doc {
	var out []cards.Doc
	for _, d := range r.Docs {
		if d.Found() && (d.IsCard() || atCardPath(d) && d.Shape != cards.ShapeCatalog) {
			out = append(out, d)
		}
	}
	return out
}

// hosted are the documents found where a card was asked for over HTTP of
// their own (not inline): their headers are judged whatever their body.
func hosted(r *cards.Result) []cards.Doc {
	var out []cards.Doc
	for _, d := range cardDocs(r) {
		if !d.Inline {
			out = append(out, d)
		}
	}
	return out
}

func mediaTypeOK(d cards.Doc) string {
	mt, _, _ := strings.Cut(d.ContentType, ";")
	if strings.EqualFold(strings.TrimSpace(mt), cards.CardType) {
		return ""
	}
	if d.ContentType == "" {
		return "no Content-Type"
	}
	return "Content-Type " + d.ContentType
}

func corsOK(d cards.Doc) string {
	switch d.AllowOrigin {
	case "*":
		return ""
	case "":
		return "no Access-Control-Allow-Origin"
	}
	return "Access-Control-Allow-Origin: " + d.AllowOrigin
}

func cacheOK(d cards.Doc) string {
	var miss []string
	if d.CacheControl == "" {
		miss = append(miss, "no Cache-Control")
	}
	switch {
	case d.ETag == "":
		miss = append(miss, "no ETag")
	case d.RevalidateErr != "":
		miss = append(miss, "a GET with If-None-Match: "+d.ETag+" got no answer ("+d.RevalidateErr+")")
	case d.Revalidated != 0 && d.Revalidated != 304:
		miss = append(miss, fmt.Sprintf("a GET with If-None-Match: %s (its own ETag) answered %d, not 304 Not Modified", d.ETag, d.Revalidated))
	}
	return strings.Join(miss, ", ")
}

// judgeCardHeader judges one header rule on every hosted card.
func judgeCardHeader(era string, r *cards.Result, id string, c *Clause, bad func(cards.Doc) string) Verdict {
	ds := hosted(r)
	if len(ds) == 0 {
		return noCard(id, era, r)
	}
	outcome := Warn
	if c.Keyword == "MUST" {
		outcome = Fail
	}
	for _, d := range ds {
		if why := bad(d); why != "" {
			return docVerdict(id, era, c, outcome, d, d.Where+" was answered with "+why)
		}
	}
	var at []string
	for _, d := range ds {
		at = append(at, d.Where)
	}
	return docVerdict(id, era, c, Pass, ds[0], "as required at "+strings.Join(at, ", "))
}

func judgeCardHTTPS(era string, r *cards.Result) Verdict {
	ds := hosted(r)
	if len(ds) == 0 {
		return noCard(IDCardHTTPS, era, r)
	}
	var local []string
	for _, d := range ds {
		final := d.URL
		if n := len(d.Redirects); n > 0 {
			final = d.Redirects[n-1]
		}
		if strings.HasPrefix(strings.ToLower(final), "https://") {
			continue
		}
		if loopbackURL(final) {
			local = append(local, d.Where)
			continue
		}
		return docVerdict(IDCardHTTPS, era, cardHTTPS, Fail, d, d.Where+" is served over plain http from "+final+", which is not this machine: a production card MUST be served over https")
	}
	if len(local) > 0 {
		return docVerdict(IDCardHTTPS, era, cardHTTPS, Observed, ds[0], "plain http on loopback ("+strings.Join(local, ", ")+"): HTTP MAY be used for local development")
	}
	return docVerdict(IDCardHTTPS, era, cardHTTPS, Pass, ds[0], "every card is served over https")
}

// JudgeConsistent lists every contradiction between each card found and
// the live connection of the era.
func JudgeConsistent(era string, r *cards.Result, live Live) Verdict {
	cs := r.Cards()
	if len(cs) == 0 {
		return noCard(IDCardConsistent, era, r)
	}
	name := gjson.GetBytes(live.ServerInfo, "name").String()
	version := gjson.GetBytes(live.ServerInfo, "version").String()
	title := gjson.GetBytes(live.ServerInfo, "title")
	var contra, notes []string
	judged := 0
	for _, d := range cs {
		c := d.Card
		// A catalog may list other servers, and a domain's well-known card
		// may describe a server at another path: only a card that is this
		// endpoint's (its reserved location, or a remote at its URL) is
		// held to what this connection said.
		if !ofEndpoint(d, live.URL) {
			notes = append(notes, d.Where+" describes another endpoint ("+remoteURLs(c)+"), not compared")
			continue
		}
		judged++
		say := func(format string, a ...any) { contra = append(contra, d.Where+": "+fmt.Sprintf(format, a...)) }
		if c.Name != "" && name != "" && !sameName(c.Name, name) {
			say("name %q, the server calls itself %q", c.Name, name)
		}
		if c.Version != "" && version != "" && c.Version != version {
			say("version %q, the server says %q", c.Version, version)
		}
		if c.Title != "" && title.Type == gjson.String && c.Title != title.String() {
			say("title %q, the server says %q", c.Title, title.String())
		}
		for _, k := range c.Capabilities {
			if !declared(live.Capabilities, k) && k != "experimental" {
				say("declares capability %s, which the server does not", k)
			}
		}
		matched := false
		for _, rm := range c.Remotes {
			if !cards.SameURL(resolve(live.URL, rm.URL), live.URL) {
				continue
			}
			matched = true
			if want := modeOfRemote(rm.Type); want != "" && live.Mode != "" && want != live.Mode {
				say("remote %s is of type %q, the server speaks %s there", rm.URL, rm.Type, modeName(live.Mode))
			}
			for _, v := range rm.Versions {
				switch {
				case era == Modern && len(live.Supported) > 0 && !slices.Contains(live.Supported, v) && !isLegacyVersion(v):
					say("remote %s lists protocol version %s, which server/discover does not support (%s)", rm.URL, v, strings.Join(live.Supported, ", "))
				case era == Legacy && c.Older && v != live.Protocol && isLegacyVersion(v) && live.Protocol != "":
					say("protocolVersion %s, the server negotiated %s when asked for it", v, live.Protocol)
				}
			}
		}
		if !matched && len(c.Remotes) > 0 {
			// Only the endpoint's own card gets here with remotes that
			// miss it (ofEndpoint): it sends a client elsewhere.
			say("its remotes (%s) do not include the endpoint it is served at, %s", remoteURLs(c), live.URL)
		}
	}
	if len(contra) > 0 {
		return docVerdict(IDCardConsistent, era, cardConsistent, Warn, cs[0], strings.Join(contra, "; "))
	}
	if judged == 0 {
		return docVerdict(IDCardConsistent, era, cardConsistent, NotApplicable, cs[0], "no card describes this endpoint: "+strings.Join(notes, "; "))
	}
	why := fmt.Sprintf("%d cards agree with the live connection (name %q, version %q)", judged, name, version)
	if len(notes) > 0 {
		why += "; " + strings.Join(notes, "; ")
	}
	return docVerdict(IDCardConsistent, era, cardConsistent, Pass, cs[0], why)
}

// sameName: a card's reverse-DNS name ("com.example/weather") agrees with
// an implementation name that is its whole or its part after the slash.
func sameName(card, live string) bool {
	if card == live {
		return true
	}
	_, after, ok := strings.Cut(card, "/")
	return ok && after == live
}

func modeOfRemote(t string) string {
	switch t {
	case "streamable-http":
		return "streamable"
	case "sse":
		return "sse"
	}
	return ""
}

func modeName(m string) string {
	if m == "sse" {
		return "legacy HTTP+SSE"
	}
	return "Streamable HTTP"
}

func isLegacyVersion(v string) bool { return v < v2 }

// fetchCards looks for the target's cards once per run (nil over stdio).
func fetchCards(ctx context.Context, o Options) *cards.Result {
	if o.Target.Kind != "http" && o.Target.Kind != "sse" {
		return nil
	}
	o.say("server cards")
	return cards.Fetch(ctx, cards.Options{URL: o.Target.URL, Timeout: o.Probe.Timeout, Insecure: o.Launch.Insecure, UserAgent: o.Launch.UserAgent})
}

// cardVerdicts judges the run's cards against one era's session.
func cardVerdicts(o Options, era string, ss *dial.Session, r *cards.Result) []Verdict {
	if o.Target.Kind != "http" && o.Target.Kind != "sse" {
		return cardsNA(era, "a stdio target: cards are published over HTTP")
	}
	c := ss.Client.Capture
	live := Live{URL: o.Target.URL, Mode: httpMode(ss), ServerInfo: c.ServerInfo, Capabilities: c.Capabilities, Protocol: c.ProtocolVersion}
	if era == Modern && c.Handshake != nil {
		for _, v := range gjson.GetBytes(c.Handshake.Result, "supportedVersions").Array() {
			live.Supported = append(live.Supported, v.String())
		}
	}
	return JudgeCards(era, r, live)
}

// ofEndpoint: the card is found at the endpoint's reserved location, names
// a remote at the endpoint's URL, or names none (a well-known card of the
// endpoint's domain with no transport says nothing of another).
func ofEndpoint(d cards.Doc, endpoint string) bool {
	if d.Where == cards.EndpointCard || len(d.Card.Remotes) == 0 {
		return true
	}
	for _, rm := range d.Card.Remotes {
		if cards.SameURL(resolve(endpoint, rm.URL), endpoint) {
			return true
		}
	}
	return false
}

func remoteURLs(c *cards.Card) string {
	var us []string
	for _, rm := range c.Remotes {
		us = append(us, rm.URL)
	}
	return strings.Join(us, ", ")
}

// resolve reads a remote's URL against the endpoint's (an older card's
// transport endpoint may be a path, "/mcp").
func resolve(endpoint, ref string) string {
	b, err := url.Parse(endpoint)
	if err != nil {
		return ref
	}
	u, err := b.Parse(ref)
	if err != nil {
		return ref
	}
	return u.String()
}
