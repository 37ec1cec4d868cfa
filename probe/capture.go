package probe

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/canon"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/tidwall/gjson"
)

// Options tune a probe run.
type Options struct {
	// Protocol is "auto" (or "") to detect the era and negotiate, or a
	// version to pin.
	Protocol string
	// Timeout bounds each request after the handshake.
	Timeout time.Duration
	// StartupTimeout bounds the handshake: the time a server has to start
	// and answer its first request.
	StartupTimeout time.Duration
	// DiscoverTimeout bounds the server/discover probe; a server silent for
	// that long after it was first heard from is taken to be legacy (see
	// awaitDiscover).
	DiscoverTimeout time.Duration
	// MaxPages bounds each list, so a server that never stops paginating
	// is a finding rather than a hang.
	MaxPages int
	// RecheckTools lists the tools a second time and reports a list that
	// changed within the session.
	RecheckTools  bool
	ClientName    string
	ClientVersion string
	// Capabilities is the client's capabilities object, raw JSON; "" is
	// {}: mcpprobe declares only what the user enabled (call's --elicit,
	// --sampling-reply, --root), and Answer answers it.
	Capabilities string
	Answer       Answerer
	// Phase, if set, hears what the probe waits for as it starts waiting:
	// since when the bound limit counts, and the bound. A terminal shows
	// it live, so a silent server is seen being waited for.
	Phase func(what string, since time.Time, limit time.Duration)
}

func (p *prober) phase(what string, since time.Time, limit time.Duration) {
	if p.o.Phase != nil {
		p.o.Phase(what, since, limit)
	}
}

func (o *Options) defaults() {
	if o.Protocol == "" {
		o.Protocol = "auto"
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.StartupTimeout <= 0 {
		o.StartupTimeout = 30 * time.Second
	}
	if o.DiscoverTimeout <= 0 {
		o.DiscoverTimeout = 3 * time.Second
	}
	if o.DiscoverTimeout > o.StartupTimeout {
		o.DiscoverTimeout = o.StartupTimeout
	}
	if o.MaxPages <= 0 {
		o.MaxPages = 1000
	}
	if o.ClientName == "" {
		o.ClientName = "mcpprobe"
	}
	if o.ClientVersion == "" {
		o.ClientVersion = "dev"
	}
}

// Page is one response of a list method, as received.
type Page struct {
	Method string
	N      int    // 1-based page number
	Cursor string // the cursor that asked for it, "" for the first page
	Raw    []byte // the whole JSON-RPC response
	Result []byte // its "result" member
	Seq    int
	T      time.Duration
}

// List is what one list method returned across all its pages.
type List struct {
	Method  string // "tools/list"
	Key     string // the result member holding the items: "tools"
	Asked   bool
	Skipped string // why it was not asked
	Pages   []Page
	Items   [][]byte // every item object as received, in order, across pages
	Error   string   // why the list stopped early, if it did
}

// Finding is something about the server worth telling its author; it
// lives in probe/findings with the registry of codes.
type Finding = findings.Finding

// Timings are monotonic times since the server was spawned.
type Timings struct {
	FirstByte time.Duration // first byte on the server's output
	// Ready is when server/discover's --discover-timeout clock started:
	// when the server was first heard from, or when the request went out
	// if that was later; 0 if never (or no server/discover was probed).
	// ReadyBy says which: "stdout" (its first byte there), "http" (its
	// first response headers), "message" (its first message), "sent".
	Ready     time.Duration
	ReadyBy   string
	Handshake time.Duration // initialize (or server/discover) result received
	LastPage  time.Duration // last list page received
	// ExitAfter is the time from closing stdin to the process exiting;
	// ExitKnown is false where there is no process (HTTP) or it was not measured.
	ExitAfter time.Duration
	ExitKnown bool
}

// Capture is everything a probe run learned, with raw bytes kept.
type Capture struct {
	Target           string
	Transport        string // "stdio"
	Era              string // "modern" or "legacy"
	RequestedVersion string
	ProtocolVersion  string
	Discover         string // what happened to server/discover, for people
	Handshake        *Page  // the initialize or server/discover response
	ServerInfo       []byte // raw JSON object, nil if none
	Capabilities     []byte // raw JSON object, nil if none
	Instructions     *string
	Tools            List
	ToolsAgain       *List // the second tools/list, for stability
	Prompts          List
	Resources        List
	Templates        List
	Skills           *Skills // nil unless the server declares the Skills extension
	Events           []Event
	// EventsNotKept counts the events past the first 10,000, which the
	// session counted by kind and method but did not keep.
	EventsNotKept int
	Findings      []Finding
	Timings       Timings
	HTTP          *HTTPSummary // nil over stdio
	Trace         *transport.Trace
}

// Add records a finding of a registered code, at the code's severity. A
// kind the server repeats past findings.FoldAt is folded into one
// finding that counts it, so a flood costs one row.
func (c *Capture) Add(code findings.Code, format string, args ...any) {
	c.Findings = findings.Add(c.Findings, findings.New(code, format, args...))
}

// SortFindings orders findings by severity, then code, for a stable report.
func (c *Capture) SortFindings() { findings.Sort(c.Findings) }

// FatalError means the server could not be probed at all. It says what
// happened, what was received and what to try.
type FatalError struct {
	What     string
	Received string // an excerpt, unescaped: escape before printing
	Try      string
	Err      error
}

func (e *FatalError) Error() string {
	var b strings.Builder
	b.WriteString(e.What)
	if e.Received != "" {
		b.WriteString("\nReceived: ")
		b.WriteString(e.Received)
	}
	if e.Try != "" {
		b.WriteString("\nTry: ")
		b.WriteString(e.Try)
	}
	return b.String()
}

func (e *FatalError) Unwrap() error { return e.Err }

// Run probes a server over conn: era and version, then every list the
// server advertises. It returns the capture even with an error, so that
// what was seen can still be shown and traced.
func Run(ctx context.Context, conn transport.Conn, o Options) (*Capture, error) {
	cl, err := Connect(ctx, conn, o)
	if err == nil {
		cl.Lists(ctx)
		if o.RecheckTools {
			cl.p.recheckTools(ctx)
		}
	}
	cl.Finish()
	return cl.Capture, err
}

type prober struct {
	s             *Session
	c             *Capture
	o             Options
	reinitialized bool
	// versionRetried: a request after the handshake was sent again after
	// -32022 (versionretry.go), once per connection.
	versionRetried bool
	quiet          bool // a second look: no findings of its own
	// handshakeStart is when the handshake began, while it runs: what
	// StartupTimeout counts from.
	handshakeStart time.Time
	// stopped says why no further list is asked for: the run was
	// interrupted, the server went past --max-bytes, or the capture's
	// keep budget is spent.
	stopped string
}

func (p *prober) add(code findings.Code, format string, args ...any) {
	if !p.quiet {
		p.c.Add(code, format, args...)
	}
}

func (p *prober) clientInfo() string {
	return `{"name":` + jsonQuote(p.o.ClientName) + `,"version":` + jsonQuote(p.o.ClientVersion) + `}`
}

// meta is the per-request _meta of the modern era.
func (p *prober) meta(version string) string {
	return `{"` + MetaProtocolVersion + `":` + jsonQuote(version) +
		`,"` + MetaClientCapabilities + `":` + p.capabilities() + `,"` + MetaClientInfo + `":` + p.clientInfo() + `}`
}

func (p *prober) capabilities() string {
	if p.o.Capabilities == "" {
		return "{}"
	}
	return p.o.Capabilities
}

// params builds a request's params for the negotiated era.
func (p *prober) params(members string) []byte {
	if p.c.Era == "modern" {
		if members != "" {
			members += ","
		}
		return []byte(`{` + members + `"_meta":` + p.meta(p.c.ProtocolVersion) + `}`)
	}
	if members == "" {
		return nil
	}
	return []byte(`{` + members + `}`)
}

func (p *prober) handshake(ctx context.Context) error {
	start := time.Now()
	p.handshakeStart = start
	defer func() { p.handshakeStart = time.Time{} }()
	pinned := p.o.Protocol != "auto"
	if pinned && IsModern(p.o.Protocol) {
		return p.discover(ctx, p.o.Protocol, p.o.StartupTimeout, true)
	}
	if !pinned {
		err := p.discover(ctx, ModernVersions[0], p.o.DiscoverTimeout, false)
		if err == nil && p.c.Era == "modern" {
			return nil
		}
		if err != nil {
			return err
		}
	} else {
		p.c.Discover = "not tried: --protocol " + p.o.Protocol + " pins a legacy version"
	}
	versions := LegacyVersions
	if pinned {
		versions = []string{p.o.Protocol}
	}
	var lastErr error
	for _, v := range versions {
		// The handshake as a whole gets StartupTimeout; initialize keeps
		// a little of it even when server/discover used the rest.
		left := p.o.StartupTimeout - time.Since(start)
		if left < 500*time.Millisecond {
			left = 500 * time.Millisecond
		}
		err := p.initialize(ctx, v, left)
		if err == nil {
			return nil
		}
		var re *RPCError
		if !errors.As(err, &re) {
			return p.fatalHandshake("initialize", err)
		}
		lastErr = err
		p.c.Add(findings.InitializeRejected, "initialize with protocol version %s was answered with error %d: %s", v, re.Code, re.Message)
	}
	return &FatalError{
		What:     "the server rejected initialize for every protocol version mcpprobe speaks (" + strings.Join(versions, ", ") + ")",
		Received: lastErr.Error(),
		Try:      "check the server's protocol versions; pin one with --protocol VERSION",
		Err:      lastErr,
	}
}

// discover sends server/discover. With required unset, any failure other
// than a recognised modern error means the server is legacy, and the
// caller falls back to initialize; a nil error with Era unset says so.
func (p *prober) discover(ctx context.Context, version string, timeout time.Duration, required bool) error {
	retried := ""
	for attempt := 0; attempt < 2; attempt++ {
		p.c.RequestedVersion = version
		params := []byte(`{"_meta":` + p.meta(version) + `}`)
		var r Response
		var err error
		if required {
			p.phase("waiting for server/discover", time.Now(), timeout)
			r, err = p.s.Call(ctx, "server/discover", params, timeout)
		} else {
			var pd *Pending
			if pd, err = p.s.Begin(ctx, "server/discover", params); err == nil {
				r, err = p.awaitDiscover(ctx, pd, version, timeout)
			}
		}
		var re *RPCError
		var quiet *discoverSilence
		switch {
		case err == nil:
			if err := p.discovered(r, version, required); err != nil || retried == "" {
				return err
			}
			if p.c.Era == "modern" {
				p.c.Discover = "supported, " + retried
			}
			return nil
		case errors.As(err, &re) && re.Code == CodeUnsupportedProtocolVersion:
			// basic/versioning: a client retries once with the newest
			// version both sides support; the server's list may name the
			// version it refused (as the conformance suite's
			// request-metadata scenario does), which is retried once too.
			supported := gjson.GetBytes(re.Data, "supported")
			next := newestModern(supported)
			if attempt > 0 {
				next = ""
			}
			if next == "" {
				if required || !hasLegacy(supported) {
					return &FatalError{
						What:     "the server does not support protocol version " + version + " and names no other version mcpprobe speaks",
						Received: string(r.Raw),
						Try:      "pin one of the versions it names with --protocol VERSION",
						Err:      err,
					}
				}
				p.c.Discover = "answered -32022 (unsupported version) naming only legacy versions " + supported.Raw + "; fell back to initialize"
				return nil
			}
			retried = fmt.Sprintf("after -32022 (unsupported protocol version %s; supported %s) retried once with %s", version, excerpt([]byte(supported.Raw), 120), next)
			version = next
		case errors.As(err, &re) && (re.Code == CodeHeaderMismatch || re.Code == CodeMissingClientCapability):
			// Modern errors: the server speaks 2026-07-28 but refused how
			// we asked. Falling back would hide that.
			return &FatalError{
				What:     fmt.Sprintf("the server speaks 2026-07-28 but rejected mcpprobe's server/discover with error %d: %s", re.Code, re.Message),
				Received: string(r.Raw),
				Try:      "pin a legacy version with --protocol 2025-11-25, and report this to mcpprobe",
				Err:      err,
			}
		case errors.As(err, &quiet):
			// Never the time it took: the words are the same however
			// slowly the server started.
			switch {
			case quiet.short:
				p.c.Discover = "no answer before --startup-timeout ran short; fell back to initialize"
			case !quiet.heard:
				p.c.Discover = "no answer, and nothing else from the server either (not even to ping) before --startup-timeout ran short; fell back to initialize"
			default:
				p.c.Discover = fmt.Sprintf("no answer within %v after the server was up (%s); fell back to initialize", timeout, quiet.by)
				p.c.Add(findings.DiscoverSilent, "server/discover got no answer within %v after the server was up (%s), so the server was taken to be legacy; a dual-era client that waits for server/discover waits that long on every start (--discover-timeout)", timeout, quiet.by)
			}
			return nil
		case errors.As(err, &re) || isTimeout(err) || isHTTPStatus(err):
			if required {
				return p.fatalHandshake("server/discover", err)
			}
			var he *transport.HTTPError
			switch {
			case errors.As(err, &he):
				p.c.Discover = fmt.Sprintf("not supported (HTTP %d); fell back to initialize", he.Status)
			case re != nil:
				p.c.Discover = fmt.Sprintf("not supported (error %d: %s); fell back to initialize", re.Code, re.Message)
			default:
				p.c.Discover = fmt.Sprintf("no answer within %v; fell back to initialize", timeout)
			}
			return nil
		default:
			return p.fatalHandshake("server/discover", err)
		}
	}
	return &FatalError{What: "server/discover kept answering -32022 (unsupported protocol version)", Try: "pin a version with --protocol VERSION"}
}

// discoverSilence is server/discover left unanswered: for the whole
// --discover-timeout after the server was up (heard, with by saying how it
// was seen to be), or with the server never heard from, or with
// --startup-timeout running short first (short).
type discoverSilence struct {
	heard, short bool
	by           string
}

func (e *discoverSilence) Error() string { return "server/discover got no answer" }

// initReserve is what the handshake keeps of --startup-timeout for
// initialize, however long server/discover was waited for.
const initReserve = 500 * time.Millisecond

// awaitDiscover waits for the answer to server/discover, pd. Its clock,
// --discover-timeout (d), starts when the server is up, not when the
// request went out: a server that needs seconds to boot (npx, a loaded
// machine) reads server/discover only then, and answers it as a fast one
// does. Up means heard from: its first byte on stdout, its first HTTP
// response headers, or its first message (see transport.Heard); stderr
// is not enough, as a wrapper writes there long before the server reads.
// A server that has said nothing after d is sent a ping, which every
// legacy revision allows before initialize, so that one that is up and
// silent to server/discover is seen to be up. The ping carries the same
// 2026-07-28 _meta as server/discover: a dual-era server decides the
// connection's era by the opening messages it reads (the TypeScript SDK
// 2.x serveStdio pins 2025-11-25 on the first request without the
// envelope), so nothing of another era is sent before the server has
// answered something: a slow first byte opens no second era on the
// stream, and the era is decided once, by the answers. Until the server is
// heard from, the wait is bounded by --startup-timeout (less what
// initialize keeps); server/discover stays pending throughout, so a slow
// start gives the same answer as a fast one. The ping is quiet (see
// BeginQuiet): whether it was sent changes no finding.
func (p *prober) awaitDiscover(ctx context.Context, pd *Pending, version string, d time.Duration) (Response, error) {
	sent := time.Now()
	end := p.handshakeStart.Add(p.o.StartupTimeout - initReserve)
	if end.Before(sent.Add(d)) {
		end = sent.Add(d)
	}
	by := "its first message"
	var hook <-chan struct{}
	if h, ok := p.s.conn.(transport.Heard); ok {
		hook = h.HeardFrom()
		by = "its first output on stdout"
		if _, isHTTP := p.s.conn.(*transport.HTTP); isHTTP {
			by = "its first HTTP response"
		}
	}
	heard := p.s.Heard()
	var up time.Time // when the clock started, zero until the server is up
	markUp := func() {
		hook, heard = nil, nil
		up = time.Now()
	}
	defer func() {
		if p.c.Timings.ReadyBy == "" {
			p.c.Timings.Ready, p.c.Timings.ReadyBy = p.readyAt(pd.Sent)
		}
	}()
	select {
	case <-hook:
		markUp()
	case <-heard:
		markUp()
	default:
	}
	if !up.IsZero() {
		// Already heard from: the clock starts with the request.
		up = sent
	}
	var ping *Pending
	pinged := false
	// pingAnswer delivers the ping's answer. A -32601 to it is the
	// 2026-07-28 era's signature (the revision removed ping; every legacy
	// revision makes it a MUST to answer): the server is up and speaks the
	// era of server/discover, which is then waited for until the end of
	// the startup bound, not d: a cold dual-era server may answer the
	// ping it pinned modern before the discover it read first.
	var pingAnswer <-chan Response
	noPing := false
	defer func() {
		if ping != nil {
			ping.Drop()
		}
	}()
	for {
		var deadline time.Time
		switch {
		case noPing:
			deadline = end
		case !up.IsZero():
			deadline = up.Add(d)
			p.phase("waiting for server/discover", up, d)
		case !pinged:
			deadline = sent.Add(d)
			p.phase("waiting for server/discover", sent, d)
		default:
			deadline = end
		}
		if deadline.After(end) {
			deadline = end
		}
		t := time.NewTimer(time.Until(deadline))
		select {
		case r, open := <-pd.Answered():
			t.Stop()
			if !open {
				return Response{}, pd.pc.err
			}
			if r.Error != nil {
				return r, r.Error
			}
			return r, nil
		case r, open := <-pingAnswer:
			t.Stop()
			pingAnswer = nil
			if open && r.Error != nil && r.Error.Code == CodeMethodNotFound {
				noPing = true
				if up.IsZero() {
					markUp()
				}
			}
		case <-hook:
			t.Stop()
			markUp()
		case <-heard:
			t.Stop()
			markUp()
		case <-ctx.Done():
			t.Stop()
			pd.Abandon()
			return Response{}, ctx.Err()
		case <-t.C:
			switch {
			case noPing:
				pd.Abandon()
				return Response{}, &discoverSilence{heard: true, short: true}
			case !up.IsZero() && !deadline.Before(up.Add(d)):
				pd.Abandon()
				return Response{}, &discoverSilence{heard: true, by: by}
			case !up.IsZero():
				pd.Abandon()
				return Response{}, &discoverSilence{heard: true, short: true}
			case !pinged:
				pinged = true
				p.phase("waiting for the server to start (server/discover and ping sent)", p.handshakeStart, p.o.StartupTimeout)
				if ping, _ = p.s.BeginQuiet(ctx, "ping", []byte(`{"_meta":`+p.meta(version)+`}`)); ping != nil {
					pingAnswer = ping.Answered()
				}
			default:
				pd.Abandon()
				return Response{}, &discoverSilence{}
			}
		}
	}
}

// readyAt is when server/discover's clock started, on the trace's clock,
// and what started it: the server's first sign of life, or the request
// itself when the server had already been heard from; "" if it never was.
func (p *prober) readyAt(sent time.Duration) (time.Duration, string) {
	at, by := time.Duration(0), ""
	if h, ok := p.s.conn.(transport.Heard); ok {
		select {
		case <-h.HeardFrom():
			at, by = h.FirstByte(), "stdout"
			if _, isHTTP := p.s.conn.(*transport.HTTP); isHTTP {
				by = "http"
			}
		default:
		}
	}
	if t, ok := p.s.HeardAt(); ok && (by == "" || t < at) {
		at, by = t, "message"
	}
	if by != "" && sent > at {
		at, by = sent, "sent"
	}
	return at, by
}

// newestModern is the newest 2026-07-28-era version mcpprobe speaks
// among supported, "" when none.
func newestModern(supported gjson.Result) string {
	for _, known := range ModernVersions {
		for _, v := range supported.Array() {
			if v.String() == known {
				return known
			}
		}
	}
	return ""
}

func hasLegacy(supported gjson.Result) bool {
	for _, v := range supported.Array() {
		if !IsModern(v.String()) {
			return true
		}
	}
	return false
}

func (p *prober) discovered(r Response, version string, required bool) error {
	res := gjson.ParseBytes(r.Result)
	supported := res.Get("supportedVersions")
	if !required && !supported.Exists() && !res.Get("resultType").Exists() {
		// A lenient legacy server answers every method it does not know
		// with an empty result (the conformance suite's own initialize
		// scenario server does): no supportedVersions and no resultType
		// is no 2026-07-28 answer, so server/discover was not served.
		p.c.Discover = "answered with a result that is no server/discover result (no supportedVersions, no resultType), as a legacy server answers a method it does not know; fell back to initialize"
		return nil
	}
	chosen := ""
	for _, v := range supported.Array() {
		if v.String() == version {
			chosen = version
		}
	}
	if chosen == "" {
		for _, v := range supported.Array() {
			if IsModern(v.String()) && KnownVersion(v.String()) {
				chosen = v.String()
				break
			}
		}
	}
	if chosen == "" {
		if required || !hasLegacy(supported) {
			return &FatalError{
				What:     "server/discover names no protocol version mcpprobe speaks",
				Received: string(r.Raw),
				Try:      "pin a version with --protocol VERSION",
			}
		}
		p.c.Discover = "answered, but supports only legacy versions " + supported.Raw + "; fell back to initialize"
		return nil
	}
	p.c.Era, p.c.ProtocolVersion = "modern", chosen
	p.c.Discover = "supported"
	p.c.Handshake = &Page{Method: "server/discover", N: 1, Raw: r.Raw, Result: r.Result, Seq: r.Seq, T: r.T}
	p.c.Timings.Handshake = r.T
	if si := res.Get("_meta").Get(gjson.Escape(MetaServerInfo)); si.Exists() {
		p.c.ServerInfo = rawOf(r.Result, si)
	} else if si := res.Get("serverInfo"); si.Exists() {
		p.c.ServerInfo = rawOf(r.Result, si)
	}
	p.takeCommon(r, res)
	if !res.Get("resultType").Exists() {
		p.c.Add(findings.NoResultType, "the server/discover result has no resultType, which 2026-07-28 requires")
	}
	return nil
}

// takeCommon reads what initialize and server/discover results share.
func (p *prober) takeCommon(r Response, res gjson.Result) {
	if caps := res.Get("capabilities"); caps.Exists() {
		p.c.Capabilities = rawOf(r.Result, caps)
	} else {
		p.c.Add(findings.NoCapabilities, "the %s result has no capabilities object", p.c.Handshake.Method)
	}
	if in := res.Get("instructions"); in.Exists() {
		if in.Type == gjson.String {
			s := strings.Clone(in.String())
			p.c.Instructions = &s
		} else {
			p.c.Add(findings.InstructionsNotString, "instructions is %s, not a string", in.Type)
		}
	}
}

// rawOf returns v's bytes as they stand in src.
func rawOf(src []byte, v gjson.Result) []byte {
	if v.Index > 0 && v.Index+len(v.Raw) <= len(src) {
		return src[v.Index : v.Index+len(v.Raw)]
	}
	return []byte(v.Raw)
}

func (p *prober) initializeParams(version string) []byte {
	return []byte(`{"protocolVersion":` + jsonQuote(version) + `,"capabilities":` + p.capabilities() + `,"clientInfo":` + p.clientInfo() + `}`)
}

func (p *prober) initialize(ctx context.Context, version string, timeout time.Duration) error {
	p.c.RequestedVersion = version
	// The handshake as a whole is bounded by StartupTimeout, from its
	// start (server/discover may have used some of it).
	since := p.handshakeStart
	if since.IsZero() {
		since = time.Now()
	}
	p.phase("waiting for initialize", since, p.o.StartupTimeout)
	r, err := p.s.Call(ctx, "initialize", p.initializeParams(version), timeout)
	if err != nil {
		return err
	}
	res := gjson.ParseBytes(r.Result)
	got := strings.Clone(res.Get("protocolVersion").String())
	p.c.Era, p.c.ProtocolVersion = "legacy", got
	p.c.Handshake = &Page{Method: "initialize", N: 1, Raw: r.Raw, Result: r.Result, Seq: r.Seq, T: r.T}
	p.c.Timings.Handshake = r.T
	switch {
	case got == "":
		p.c.Add(findings.NoProtocolVersion, "the initialize result has no protocolVersion")
	case !KnownVersion(got):
		p.c.Add(findings.UnknownProtocolVersion, "the server answered protocol version %q, which mcpprobe does not know; probing on as %s", got, version)
	case got != version && p.o.Protocol != "auto":
		p.c.Add(findings.VersionNotPinned, "--protocol %s was asked for, the server answered %s", version, got)
	}
	if si := res.Get("serverInfo"); si.Exists() {
		p.c.ServerInfo = rawOf(r.Result, si)
	} else {
		p.c.Add(findings.NoServerInfo, "the initialize result has no serverInfo")
	}
	p.takeCommon(r, res)
	// Over HTTP every later request names the version in a header.
	if vs, ok := p.s.conn.(interface{ SetProtocolVersion(string) }); ok && got != "" {
		vs.SetProtocolVersion(got)
	}
	if err := p.s.Notify("notifications/initialized", nil); err != nil {
		// The handshake itself succeeded; what follows will show the rest.
		p.c.Add(findings.InitializedNotSent, "notifications/initialized could not be sent: %v", err)
	}
	return nil
}

func (p *prober) fatalHandshake(method string, err error) error {
	var te *TimeoutError
	var ce *ClosedError
	var he *transport.HTTPError
	switch {
	case errors.Is(err, context.Canceled):
		// The user stopped the run: nothing is the server's fault.
		return &FatalError{What: fmt.Sprintf("interrupted while waiting for the answer to %s", method), Err: err,
			Received: "the run was stopped before the server answered", Try: "run it again and let it finish"}
	case errors.Is(err, transport.ErrTooMuch):
		return &FatalError{What: fmt.Sprintf("the server sent more than --max-bytes before it answered %s", method), Err: err,
			Try: "raise --max-bytes if the server really sends that much; otherwise it floods its output"}
	case errors.As(err, &te):
		return &FatalError{
			// The limit the user chose (or the default), not what was
			// left of it for this request: the handshake as a whole
			// gets StartupTimeout.
			What: fmt.Sprintf("the server did not answer %s within %v (--startup-timeout)", method, p.o.StartupTimeout.Round(time.Millisecond)),
			Try:  "check that it speaks MCP over stdio on stdout (not HTTP, not stderr); raise --startup-timeout if it starts slowly",
			Err:  err,
		}
	case errors.As(err, &ce):
		return &FatalError{What: fmt.Sprintf("the server closed its output before it answered %s", method), Err: err,
			Try: "run the command by hand to see why it exits"}
	case errors.As(err, &he):
		return &FatalError{What: fmt.Sprintf("the server refused %s with HTTP %d %s", method, he.Status, http.StatusText(he.Status)), Err: err}
	case errors.Is(err, transport.ErrLineTooLong):
		return &FatalError{What: fmt.Sprintf("the answer to %s could not be read", method), Received: err.Error(),
			Try: "raise --max-line"}
	}
	return &FatalError{What: fmt.Sprintf("%s failed", method), Received: err.Error(), Err: err}
}

// isHTTPStatus is true for an HTTP answer without a JSON-RPC message for
// us: a legacy server's way to refuse a modern request.
func isHTTPStatus(err error) bool {
	var he *transport.HTTPError
	return errors.As(err, &he)
}

func isTimeout(err error) bool {
	var te *TimeoutError
	return errors.As(err, &te)
}

// listSpecs are the lists a server may offer, with the capability that
// advertises each and the member naming an item.
var listSpecs = []struct {
	method, key, capability, ident, noun string
	pick                                 func(*Capture) *List
}{
	{"tools/list", "tools", "tools", "name", "tool", func(c *Capture) *List { return &c.Tools }},
	{"prompts/list", "prompts", "prompts", "name", "prompt", func(c *Capture) *List { return &c.Prompts }},
	{"resources/list", "resources", "resources", "uri", "resource", func(c *Capture) *List { return &c.Resources }},
	{"resources/templates/list", "resourceTemplates", "resources", "uriTemplate", "resource template", func(c *Capture) *List { return &c.Templates }},
}

// duplicateCodes name an item listed twice, by the list's noun.
var duplicateCodes = map[string]findings.Code{
	"tool":              findings.DuplicateTool,
	"prompt":            findings.DuplicatePrompt,
	"resource":          findings.DuplicateResource,
	"resource template": findings.DuplicateResourceTemplate,
}

// hasDuplicateCode: a list whose duplicates have a finding of their own
// (a duplicated skill is the skills checks' to judge).
func hasDuplicateCode(noun string) bool { _, ok := duplicateCodes[noun]; return ok }

func (p *prober) lists(ctx context.Context) {
	caps := gjson.ParseBytes(p.c.Capabilities)
	for _, spec := range listSpecs {
		l := spec.pick(p.c)
		l.Method, l.Key = spec.method, spec.key
		if !caps.Get(spec.capability).Exists() {
			l.Skipped = "the server does not advertise the " + spec.capability + " capability"
			continue
		}
		if p.stopped != "" {
			l.Skipped = p.stopped
			continue
		}
		l.Asked = true
		p.list(ctx, l, spec.ident, spec.noun)
	}
	p.skills(ctx, true)
}

func (p *prober) list(ctx context.Context, l *List, ident, noun string) {
	// Cursors are the server's strings, up to --max-line each: a loop is
	// found by their hashes, so that a thousand fresh 1 MB cursors cost
	// a thousand hashes, not a gigabyte.
	seenCursor := map[[32]byte]int{}
	seenItem := map[string][]int{}
	var order []string
	cursor := ""
	// The first page in the 2025 shape, and what it lacks: one finding a list.
	shapeAt, shape := 0, ""
	for n := 1; ; n++ {
		if n > p.o.MaxPages {
			l.Error = fmt.Sprintf("stopped after %d pages", p.o.MaxPages)
			p.add(findings.TooManyPages, "%s was still returning a nextCursor after %d pages; mcpprobe stopped there (--max-pages)", l.Method, p.o.MaxPages)
			break
		}
		members := ""
		if n > 1 {
			members = `"cursor":` + jsonQuote(cursor)
		}
		p.phase(fmt.Sprintf("waiting for %s page %d", l.Method, n), time.Now(), p.o.Timeout)
		r, err := p.s.Call(ctx, l.Method, p.params(members), p.o.Timeout)
		if p.retryVersion(l.Method, err) {
			r, err = p.s.Call(ctx, l.Method, p.params(members), p.o.Timeout)
		}
		if errors.Is(err, transport.ErrSessionExpired) && !p.reinitialized && p.c.Era == "legacy" {
			// The spec's answer to a 404 on a live session: start a new
			// one, once, and carry on.
			p.reinitialized = true
			p.add(findings.SessionExpired, "%s page %d answered 404 for the session; mcpprobe initialized a new session and retried (a host does the same, or fails)", l.Method, n)
			if err = p.initialize(ctx, p.c.RequestedVersion, p.o.StartupTimeout); err == nil {
				r, err = p.s.Call(ctx, l.Method, p.params(members), p.o.Timeout)
			}
		}
		if err != nil {
			p.listError(ctx, l, n, err)
			break
		}
		if r.Dropped {
			// Its bytes were past what the session keeps: holding them
			// here would hold what the budget refused.
			l.Error = fmt.Sprintf("stopped at page %d: the session's keep budget is spent", n)
			p.stopped = "not asked: the session's keep budget was spent"
			p.capped(fmt.Sprintf("%s stopped at page %d", l.Method, n))
			break
		}
		page := Page{Method: l.Method, N: n, Cursor: cursor, Raw: r.Raw, Result: r.Result, Seq: r.Seq, T: r.T}
		l.Pages = append(l.Pages, page)
		if !p.quiet {
			p.c.Timings.LastPage = r.T
		}
		if p.c.Era == "modern" && shapeAt == 0 {
			if shape = LegacyShape(l.Method, r.Result); shape != "" {
				shapeAt = n
			}
		}
		res := gjson.ParseBytes(r.Result)
		items := res.Get(l.Key)
		if !items.IsArray() {
			p.add(findings.MalformedList, "page %d of %s has no %q array", n, l.Method, l.Key)
		}
		for _, it := range items.Array() {
			l.Items = append(l.Items, rawOf(r.Result, it))
			// Cloned: a gjson string is a window on the whole page,
			// which the map would keep alive.
			id := strings.Clone(it.Get(ident).String())
			if _, ok := seenItem[id]; !ok {
				order = append(order, id)
			}
			seenItem[id] = append(seenItem[id], n)
		}
		next := res.Get("nextCursor")
		if !next.Exists() || next.Type == gjson.Null || next.String() == "" {
			break
		}
		cursor = strings.Clone(next.String())
		h := sha256.Sum256([]byte(cursor))
		if first, ok := seenCursor[h]; ok {
			l.Error = "cursor loop"
			p.add(findings.CursorLoop, "%s page %d returned nextCursor %q, which page %d had already returned; a client that trusts it never finishes", l.Method, n, excerpt([]byte(cursor), 80), first)
			break
		}
		seenCursor[h] = n
	}
	if l.Method == "tools/list" && p.c.Era == "modern" {
		p.mirrorParams(l.Items)
	}
	if shapeAt > 0 {
		p.add(findings.LegacyShapedResult, "%s (page %d of %d) has %s on this 2026-07-28 connection: %s; the 2025 shape, as a dual-era server answers once it pinned the connection to 2025-11-25", l.Method, shapeAt, len(l.Pages), shape, ShapeClause)
	}
	for _, id := range order {
		if pages := seenItem[id]; len(pages) > 1 && hasDuplicateCode(noun) {
			p.add(duplicateCodes[noun], "%s %q appears %d times (pages %s); hosts keep one or reject the server", noun, id, len(pages), joinInts(pages))
		}
	}
}

// mirrorParams tells an HTTP conn which tool parameters each tools/call
// mirrors into Mcp-Param headers: in 2026-07-28 "clients MUST mirror the
// designated parameter values into HTTP headers" (basic/transports,
// custom headers from tool parameters), and a server that enforces them
// refuses a call without them. Stdio MAY ignore them.
func (p *prober) mirrorParams(tools [][]byte) {
	conn, ok := p.s.conn.(interface {
		SetParamHeaders(map[string][]transport.ParamHeader)
	})
	if !ok {
		return
	}
	byTool := map[string][]transport.ParamHeader{}
	for _, t := range tools {
		if hs := transport.ParamHeaders(gjson.GetBytes(t, "inputSchema")); len(hs) > 0 {
			byTool[gjson.GetBytes(t, "name").String()] = hs
		}
	}
	conn.SetParamHeaders(byTool)
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

// capped reports, once, that the session's keep budget was spent.
func (p *prober) capped(where string) {
	for _, f := range p.c.Findings {
		if f.Code == findings.CaptureCapped {
			return
		}
	}
	frames, bytes := p.c.Trace.Dropped()
	p.c.Add(findings.CaptureCapped, "the server sent more than this session keeps in memory: %s; %d later frames (%d bytes) were counted and traced, not kept", where, frames, bytes)
}

func (p *prober) listError(ctx context.Context, l *List, page int, err error) {
	l.Error = err.Error()
	var re *RPCError
	switch {
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		// The user stopped the run: no finding about the server.
		l.Error = "interrupted"
		p.stopped = "not asked: the run was interrupted"
	case errors.Is(err, transport.ErrTooMuch):
		// The launcher reports it (max-bytes) with the server's name.
		p.stopped = "not asked: the server had sent more than --max-bytes"
	case errors.As(err, &re) && re.Code == CodeMethodNotFound:
		p.add(findings.MethodNotFound, "%s answered -32601 (method not found) though the server advertises it", l.Method)
	case errors.As(err, &re):
		p.add(findings.ListError, "%s page %d answered error %d: %s", l.Method, page, re.Code, re.Message)
	case isHTTPStatus(err):
		p.add(findings.ListHTTPError, "%s page %d: %v", l.Method, page, err)
	case errors.Is(err, transport.ErrLineTooLong):
		p.add(findings.LineTooLong, "%s page %d could not be read: %v", l.Method, page, err)
	case isTimeout(err):
		p.add(findings.ListTimeout, "%s page %d got no answer within %v", l.Method, page, p.o.Timeout)
	default:
		p.add(findings.ListFailed, "%s page %d failed: %v", l.Method, page, err)
	}
}

// recheckTools lists the tools a second time, after whatever
// notifications/tools/list_changed the server sent: a list that changes
// within one session breaks every client that caches it.
func (p *prober) recheckTools(ctx context.Context) {
	first := p.c.Tools
	if !first.Asked || first.Error != "" || len(first.Pages) == 0 {
		return
	}
	again := List{Method: first.Method, Key: first.Key, Asked: true}
	p.quiet = true
	p.list(ctx, &again, "name", "tool")
	p.quiet = false
	if again.Error != "" || len(again.Pages) == 0 {
		return
	}
	p.c.ToolsAgain = &again
	changed := false
	for _, e := range p.s.Events() {
		if e.Method == "notifications/tools/list_changed" {
			changed = true
		}
	}
	if diff := compareItems(first.Items, again.Items); diff != "" {
		why := "with no notifications/tools/list_changed in between"
		if changed {
			why = "after the server sent notifications/tools/list_changed"
		}
		p.c.Add(findings.ToolsUnstable, "tools/list answered differently the second time, %s: %s", why, diff)
		return
	}
	if at, was, now := FirstDifference(first.Pages[0].Result, again.Pages[0].Result); at >= 0 {
		p.c.Add(findings.ToolsNotByteIdentical, "tools/list not byte-identical across calls: the same tools in the same order, and the first page's result differs at byte %d: %s (call 1) vs %s (call 2)", at, was, now)
	}
}

// FirstDifference is the offset of the first byte where a and b differ,
// with an excerpt of each (quoted, from 20 bytes before it to 40 after);
// -1 when equal. wire and check show a tools/list that is not
// byte-identical with it.
func FirstDifference(a, b []byte) (int, string, string) {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n && len(a) == len(b) {
		return -1, "", ""
	}
	lo := max(i-20, 0)
	cut := func(s []byte) string { return fmt.Sprintf("%q", s[min(lo, len(s)):min(i+40, len(s))]) }
	return i, cut(a), cut(b)
}

// compareItems says how two lists of tools differ in meaning, or "".
func compareItems(a, b [][]byte) string {
	// The same bytes in the same order mean the same list: most servers
	// answer twice alike, and canonicalizing 10,000 tools twice cost
	// wire a fifth of its time.
	if slices.EqualFunc(a, b, bytes.Equal) {
		return ""
	}
	index := func(items [][]byte) (map[string]string, []string) {
		m := map[string]string{}
		var order []string
		for _, it := range items {
			name := gjson.GetBytes(it, "name").String()
			m[name] = string(canon.JSON(it))
			order = append(order, name)
		}
		return m, order
	}
	am, ao := index(a)
	bm, bo := index(b)
	var parts []string
	for _, n := range ao {
		if _, ok := bm[n]; !ok {
			parts = append(parts, fmt.Sprintf("%q gone", n))
		} else if bm[n] != am[n] {
			parts = append(parts, fmt.Sprintf("%q changed", n))
		}
	}
	for _, n := range bo {
		if _, ok := am[n]; !ok {
			parts = append(parts, fmt.Sprintf("%q new", n))
		}
	}
	if len(parts) == 0 && strings.Join(ao, "\x00") != strings.Join(bo, "\x00") {
		parts = append(parts, "same tools in another order")
	}
	return strings.Join(parts, ", ")
}

// eventFindings turns what the server sent unasked into findings.
func (p *prober) eventFindings() {
	// Counts come from the session, which counted every event; the kept
	// ones give the order and the per-event findings.
	counts, notKept := p.s.EventCounts()
	p.c.EventsNotKept = notKept
	seen := map[string]bool{}
	kept := map[string]int{}
	var keys []string
	// A frame is named by its place on its own stream, not by the
	// trace's Seq, which stderr lines interleaving with stdout move.
	var places Places
	if len(p.c.Events) > 0 {
		places = NewPlaces(p.c.Trace)
	}
	for _, e := range p.c.Events {
		k := e.Kind + "\x00" + e.Method
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
		kept[k]++
		switch e.Kind {
		case "unknown_id":
			p.c.Add(findings.UnknownID, "%s (%s)", e.Note, places.Of(e.Seq))
		case "invalid":
			p.c.Add(findings.InvalidMessage, "%s: %s", places.Of(e.Seq), e.Note)
		case "late_reply":
			p.c.Add(findings.LateReply, "%s (%s)", e.Note, places.Of(e.Seq))
		}
	}
	var late []string
	for k := range counts {
		if !seen[k] {
			late = append(late, k)
		}
	}
	sort.Strings(late)
	keys = append(keys, late...)
	if notKept > 0 {
		p.capped(fmt.Sprintf("%d events past the first %d were counted, not kept", notKept, maxEvents))
	}
	// The events of a finding each that were counted and not kept count
	// in their kind's folded finding, so that it says how many there were.
	perEvent := map[string]findings.Code{"unknown_id": findings.UnknownID, "invalid": findings.InvalidMessage, "late_reply": findings.LateReply}
	for _, k := range keys {
		kind, _, _ := strings.Cut(k, "\x00")
		if code, ok := perEvent[kind]; ok && counts[k] > kept[k] {
			f := findings.New(code, "%d more past the first %d events, counted and not kept", counts[k]-kept[k], maxEvents)
			f.Count = counts[k] - kept[k]
			p.c.Findings = findings.Add(p.c.Findings, f)
		}
	}
	for _, k := range keys {
		kind, method, _ := strings.Cut(k, "\x00")
		n := counts[k]
		switch kind {
		case "request":
			answer := "mcpprobe answered -32601, as it declares no such capability"
			if method == "ping" {
				answer = "mcpprobe answered it"
			}
			if k := p.s.AnsweredByPolicy()[method]; k > 0 {
				answer = fmt.Sprintf("mcpprobe answered %d as the user's policy says", k)
			}
			p.c.Add(findings.ServerRequest, "the server sent %s ×%d during the probe; %s", method, n, answer)
		case "notification":
			p.c.Add(findings.Notification, "the server sent %s ×%d during the probe", method, n)
		case "batch":
			p.c.Add(findings.Batch, "the server sent %d JSON-RPC batches; batching was removed in 2025-06-18", n)
		}
	}
}

// jsonQuote encodes s as a JSON string; strconv.Quote is not JSON (it
// writes \x00), and cursors and names come from the server.
func jsonQuote(s string) string { return string(quote(s)) }

// quote is s as a JSON string, as canon.String writes it. Printable ASCII
// without a quote or backslash (every method and most tool names) needs
// no escaping, and skips the encoder that cost 6 of a call's 22
// allocations.
func quote(s string) []byte { return appendQuote(make([]byte, 0, len(s)+2), s) }

// appendQuote appends s as a JSON string to dst, as quote writes it.
func appendQuote(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return append(dst, canon.String(s)...)
		}
	}
	return append(append(append(dst, '"'), s...), '"')
}
