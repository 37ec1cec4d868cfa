// Package oauth is mcpprobe's OAuth client: it gets an access token for a
// protected MCP server the way a host does, so that every command can
// probe it. From the server's 401 it finds the protected-resource
// metadata (the challenge's resource_metadata, then the well-known URIs in
// the spec's order), the authorization server's metadata (RFC 8414, then
// OpenID Connect discovery, in the spec's order), a client (pre-registered,
// a Client ID Metadata Document, or dynamic registration, in the order the
// spec recommends) and a token: authorization code with PKCE S256 and the
// RFC 8707 resource parameter through a loopback redirect for a person at
// a browser, or, for CI, client_credentials or a refresh token given in
// the environment. golang.org/x/oauth2 does the PKCE and the token
// exchanges.
//
// Every secret (token, refresh token, client secret, PKCE verifier,
// authorization code) is handed to Options.OnSecret the moment it exists,
// before anything can print it. Every exchange is recorded in the session's
// trace (transport.DirAuth frames), bounded like everything a server
// sends. The token is only ever sent to the origin it was issued for.
//
// 2025-11-25 Authorization: https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/netguard"
	"github.com/mcpprobe/mcpprobe/transport"
	"golang.org/x/oauth2"
)

// Options say how to get the token.
type Options struct {
	// URL is the MCP endpoint.
	URL string
	// Interactive: authorization code with a loopback redirect, for a
	// person at a browser (--oauth).
	Interactive bool
	// ClientID is a pre-registered client, or a Client ID Metadata
	// Document's URL; ClientSecret its secret, if confidential.
	ClientID, ClientSecret string
	// ClientKey, given, authenticates ClientID at the token endpoint
	// with a signed assertion (private_key_jwt, jwt.go) instead of a
	// secret, for client_credentials.
	ClientKey *ClientKey
	// RefreshToken, given, is exchanged for the token (CI).
	RefreshToken string
	// Scope overrides the scope the server asks for.
	Scope string
	// CachePath, when set, is a file of tokens kept between runs (0600),
	// keyed by resource and issuer.
	CachePath string
	// BrowserCmd, when set, is run with the authorization URL as its last
	// argument; otherwise the URL is only printed.
	BrowserCmd []string
	// Headers are sent with the requests to the MCP server's origin (not
	// to the authorization server).
	Headers []string
	// Timeout bounds each request; Wait bounds the wait for the browser's
	// redirect.
	Timeout, Wait time.Duration
	Insecure      bool
	UserAgent     string
	// Prompt is where the authorization URL is printed (stderr).
	Prompt io.Writer
	// OnSecret is given every secret the moment it exists.
	OnSecret func(string)
	// Issuer is the authorization server the user named (--issuer): with
	// the resource's own origin, the only origin a client secret or a
	// refresh token given by the user is sent to.
	Issuer string
	// Classify replaces netguard's classifier of the addresses fetched
	// (tests: a loopback stand-in declared public or internal).
	Classify func(netip.AddrPort) netguard.Class
}

// DefaultWait bounds the wait for a person at a browser.
const DefaultWait = 5 * time.Minute

// Host is the OAuth client of one run: it authorizes once (Authorize),
// then gives every connection its Authorization (transport.Bearer).
type Host struct {
	o Options

	once      sync.Once
	err       error
	refreshMu sync.Mutex // one refresh at a time

	mu       sync.Mutex
	resource string // the RFC 8707 resource the token is for
	origin   string // its origin: the only one the token goes to
	issuer   string
	as       *asMeta
	client   client
	tok      *oauth2.Token
	grant    string // how the token was got
	cached   bool   // from --token-cache
	scope    string
	noPRM    bool // no protected-resource metadata document was found
	stepUps  int  // re-authorizations after 403 insufficient_scope (stepup.go)
	// migrations counts the changes of authorization server followed,
	// left the issuers they left (migrate.go).
	migrations int
	left       []string
	rec        *recorder
	guard      *netguard.Guard
	told       map[string]bool // "sent … to …" lines already written
}

// New prepares a client; nothing is sent until Authorize.
func New(o Options) *Host {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.Wait <= 0 {
		o.Wait = DefaultWait
	}
	if o.Prompt == nil {
		o.Prompt = io.Discard
	}
	if o.OnSecret == nil {
		o.OnSecret = func(string) {}
	}
	for _, s := range []string{o.ClientSecret, o.RefreshToken} {
		if s != "" {
			o.OnSecret(s)
		}
	}
	if o.ClientKey != nil {
		for _, s := range o.ClientKey.secrets {
			o.OnSecret(s)
		}
	}
	return &Host{o: o, guard: &netguard.Guard{Target: o.URL, Classify: o.Classify}, told: map[string]bool{}}
}

// Error is a failure to get a token, in the three parts of every
// exit-3 message.
type Error struct {
	What, Received, Try string
}

func (e *Error) Error() string { return e.What }

// fail builds an Error. Its what and try quote the server's metadata
// (issuers, endpoints, resources) and are printed as they are: every
// character a terminal acts on or reorders is escaped here (received is
// escaped line by line where it is printed).
func fail(what, received, try string) error {
	return &Error{What: safeText(what), Received: received, Try: safeText(try)}
}

// Authorize gets the token, once per run: later calls return the first
// call's outcome. Every exchange is recorded in tr.
func (h *Host) Authorize(ctx context.Context, tr *transport.Trace) error {
	h.once.Do(func() {
		h.rec = newRecorder(h.o, tr, h.guard)
		h.err = h.authorize(ctx)
	})
	return h.err
}

// Grant says how the token was got ("client_credentials", …).
func (h *Host) Grant() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cached {
		return h.grant + " (from --token-cache)"
	}
	return h.grant
}

// AccessToken is the token now held ("" before Authorize succeeded), for
// the audit's baseline (probe/authz): a secret of the run already.
func (h *Host) AccessToken() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.tok == nil {
		return ""
	}
	return h.tok.AccessToken
}

// Resource is the resource the token was issued for.
func (h *Host) Resource() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.resource
}

func (h *Host) authorize(ctx context.Context) error {
	u, err := url.Parse(h.o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fail(fmt.Sprintf("OAuth: %q is not an http(s) URL", h.o.URL), "nothing: no request was sent", "give the MCP endpoint's URL, such as https://host/mcp")
	}
	ch := h.challenge(ctx, u)
	prm, err := h.resourceMetadata(ctx, u, ch)
	var as *asMeta
	switch {
	case err != nil && prm == nil && h.noPRM && ch.status == http.StatusUnauthorized:
		// No protected-resource metadata at all: the 2025-03-26 way
		// (legacy.go).
		if prm, as, err = h.legacyDiscovery(ctx, u); err != nil {
			return err
		}
	case err != nil:
		return err
	default:
		if as, err = h.serverMetadata(ctx, prm); err != nil {
			return err
		}
	}
	h.mu.Lock()
	h.resource, h.origin, h.issuer, h.as = prm.Resource, originOf(u), as.Issuer, as
	h.scope = chooseScope(h.o.Scope, ch.scope, prm.ScopesSupported)
	h.mu.Unlock()
	if h.fromCache(ctx) {
		return nil
	}
	h.mu.Lock()
	h.grant, h.cached = "", false // a cached token that could not serve
	h.mu.Unlock()
	var tok *oauth2.Token
	switch {
	case h.o.Interactive:
		tok, err = h.authorizationCode(ctx)
	case h.o.RefreshToken != "":
		h.client = client{id: h.o.ClientID, secret: h.o.ClientSecret, how: "pre-registered"}
		tok, err = h.refresh(ctx, h.o.RefreshToken)
		h.setGrant("refresh_token (--refresh-token-env)")
	default:
		h.client = client{id: h.o.ClientID, secret: h.o.ClientSecret, how: "pre-registered"}
		tok, err = h.clientCredentials(ctx)
		h.setGrant("client_credentials")
	}
	if err != nil {
		return err
	}
	h.setToken(tok)
	h.saveCache()
	return nil
}

func (h *Host) setGrant(g string) {
	h.mu.Lock()
	if h.grant == "" {
		h.grant = g
	}
	h.mu.Unlock()
}

// setToken keeps tok, every secret in it one of the run's first.
func (h *Host) setToken(tok *oauth2.Token) {
	for _, s := range []string{tok.AccessToken, tok.RefreshToken} {
		if s != "" {
			h.o.OnSecret(s)
		}
	}
	if id, ok := tok.Extra("id_token").(string); ok && id != "" {
		h.o.OnSecret(id)
	}
	h.mu.Lock()
	if tok.RefreshToken == "" && h.tok != nil {
		tok.RefreshToken = h.tok.RefreshToken // the old one stands when none is returned
	}
	h.tok = tok
	h.mu.Unlock()
}

// Authorization implements transport.Bearer: the token, only for the
// origin it was issued for; a token known to have expired is refreshed
// first, when it can be.
func (h *Host) Authorization(ctx context.Context, u *url.URL, tr *transport.Trace) string {
	h.mu.Lock()
	tok, origin := h.tok, h.origin
	h.mu.Unlock()
	if tok == nil || u == nil || originOf(u) != origin {
		return ""
	}
	if !tok.Expiry.IsZero() && time.Until(tok.Expiry) < 5*time.Second {
		if h.Refresh(ctx, "Bearer "+tok.AccessToken, tr) == nil {
			h.mu.Lock()
			tok = h.tok
			h.mu.Unlock()
		}
	}
	return "Bearer " + tok.AccessToken
}

// Refresh implements transport.Bearer: a fresh token in place of stale,
// by the refresh token when there is one, by client_credentials again
// when that is how the token was got. A token already replaced (another
// connection refreshed it) is not refreshed again.
func (h *Host) Refresh(ctx context.Context, stale string, tr *transport.Trace) error {
	h.refreshMu.Lock()
	defer h.refreshMu.Unlock()
	h.mu.Lock()
	tok, grant, rec := h.tok, h.grant, h.rec
	h.mu.Unlock()
	if tok == nil {
		return errors.New("no token")
	}
	if "Bearer "+tok.AccessToken != stale {
		return nil
	}
	if tr != nil {
		rec = newRecorder(h.o, tr, h.guard)
	}
	var err error
	switch {
	case tok.RefreshToken != "":
		tok, err = h.refreshWith(ctx, rec, tok.RefreshToken)
	case grant == "client_credentials":
		tok, err = h.clientCredentialsWith(ctx, rec)
	default:
		err = errors.New("the authorization server issued no refresh token")
	}
	if err != nil {
		return err
	}
	h.setToken(tok)
	h.saveCache()
	return nil
}

// chooseScope is the spec's Scope Selection Strategy: the challenge's
// scope, else every scope of scopes_supported, else none; a scope the
// user gave overrides both.
func chooseScope(flag, challenged string, supported []string) string {
	switch {
	case flag != "":
		return flag
	case challenged != "":
		return challenged
	}
	return strings.Join(supported, " ")
}

func originOf(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}
