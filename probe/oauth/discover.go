package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/wwwauth"
)

// challenged is what the first, unauthenticated request showed.
type challenged struct {
	status           int
	resourceMetadata string // the challenge's resource_metadata
	scope            string // the challenge's scope
	err              string // no answer at all
}

// initialize is what a host sends first, without a token.
const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpprobe","version":"oauth"}}}`

// challenge sends the MCP request a host sends first, without a token,
// and reads the 401's WWW-Authenticate (RFC 9728 §5.1, RFC 6750 §3).
func (h *Host) challenge(ctx context.Context, u *url.URL) challenged {
	hdr := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	ans := h.rec.do(ctx, http.MethodPost, u.String(), hdr, []byte(initialize), h.o.Headers)
	if ans.err != nil {
		return challenged{err: ans.err.Error()}
	}
	c := challenged{status: ans.status}
	if ans.status < 300 {
		// initialize served without a token: a host goes on to the
		// requests that need one, and the scope it asks for first is the
		// one the 401 on them names (Scope Selection Strategy: "the
		// initial WWW-Authenticate header in the 401 response").
		sid := ans.header.Get("Mcp-Session-Id")
		if next := h.nextChallenge(ctx, u, sid); next.status == http.StatusUnauthorized {
			ans = next
			c.status = next.status
		}
		if sid != "" {
			// The session it opened is let go.
			h.rec.do(ctx, http.MethodDelete, u.String(), map[string]string{"Mcp-Session-Id": sid}, nil, h.o.Headers)
		}
	}
	// A malformed challenge is skipped: what parsed before it still
	// counts, as it does in the audit (the same parser).
	cs, _ := wwwauth.Parse(ans.header.Values("WWW-Authenticate"))
	for _, ch := range cs {
		if ch.Scheme != "bearer" {
			continue
		}
		if c.resourceMetadata == "" {
			c.resourceMetadata = ch.Params["resource_metadata"]
		}
		if c.scope == "" {
			c.scope = ch.Params["scope"]
		}
	}
	return c
}

// afterInitialize is what a 2025-11-25 host sends once initialize is
// answered: the initialized notification, then the tool list.
var afterInitialize = []string{
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
}

// nextChallenge sends, without a token, what a host sends after an
// initialize that was served without one, on its session, and returns
// the first answer that is not a success (the 401 that names the
// scope), else the last. Two requests, each bounded like every exchange.
func (h *Host) nextChallenge(ctx context.Context, u *url.URL, sid string) answer {
	hdr := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
	if sid != "" {
		hdr["Mcp-Session-Id"] = sid
	}
	var ans answer
	for _, body := range afterInitialize {
		if ans = h.rec.do(ctx, http.MethodPost, u.String(), hdr, []byte(body), h.o.Headers); ans.err != nil || ans.status >= 300 {
			break
		}
	}
	return ans
}

// ResourceMetadataURLs are the protected-resource metadata URLs to try, in
// the spec's order: the challenge's resource_metadata when present, then
// the well-known URI at the endpoint's path, then at the root (2025-11-25
// Authorization, Protected Resource Metadata Discovery Requirements; RFC
// 9728 §3.1). The path form is not applicable to an endpoint at the root.
func ResourceMetadataURLs(endpoint *url.URL, fromHeader string) []string {
	var out []string
	if fromHeader != "" {
		out = append(out, fromHeader)
	}
	root := originOf(endpoint) + "/.well-known/oauth-protected-resource"
	if p := strings.TrimSuffix(endpoint.EscapedPath(), "/"); p != "" {
		out = append(out, root+p)
	}
	return append(out, root)
}

// AuthServerMetadataURLs are the authorization-server metadata URLs to
// try for issuer, in the spec's order (2025-11-25 Authorization,
// Authorization Server Metadata Discovery): for an issuer with a path,
// RFC 8414 with the path inserted, OpenID Connect with the path inserted,
// OpenID Connect with the path appended; without one, RFC 8414, then
// OpenID Connect.
func AuthServerMetadataURLs(issuer string) ([]string, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("authorization server %q is not an http(s) URL", issuer)
	}
	o := u.Scheme + "://" + u.Host
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	if p == "" {
		return []string{o + "/.well-known/oauth-authorization-server", o + "/.well-known/openid-configuration"}, nil
	}
	return []string{
		o + "/.well-known/oauth-authorization-server" + p,
		o + "/.well-known/openid-configuration" + p,
		o + p + "/.well-known/openid-configuration",
	}, nil
}

// prmDoc is the protected-resource metadata (RFC 9728 §2) as far as a
// client needs it.
type prmDoc struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
	from                 string
}

// resourceMetadata finds and checks the protected-resource metadata.
func (h *Host) resourceMetadata(ctx context.Context, u *url.URL, ch challenged) (*prmDoc, error) {
	var tried []string
	for _, m := range ResourceMetadataURLs(u, ch.resourceMetadata) {
		ans := h.rec.doc(ctx, m, h.o.Headers)
		tried = append(tried, m+": "+ans.String())
		if ans.err != nil || ans.status != http.StatusOK {
			h.rec.show(ans, false, "not a 200 answer")
			continue
		}
		var d prmDoc
		if err := json.Unmarshal(ans.body, &d); err != nil {
			tried[len(tried)-1] = m + ": 200 but not JSON metadata"
			h.rec.show(ans, false, "not JSON metadata")
			continue
		}
		d.from = m
		prm, err := checkPRM(&d, u, ch)
		switch mu, _ := url.Parse(m); {
		case err != nil:
			h.rec.show(ans, false, "failed validation: "+err.Error())
		case mu == nil || originOf(mu) != originOf(u):
			// A host uses metadata from anywhere the 401 names; what it
			// holds is shown only when the resource's own origin served it.
			h.rec.show(ans, false, "from another origin than the resource's ("+originOf(u)+")")
		default:
			h.rec.show(ans, true, "")
		}
		return prm, err
	}
	h.noPRM = true // none found: the 2025-03-26 fallback may apply (legacy.go)
	what := "OAuth: no protected-resource metadata found for " + u.String()
	switch {
	case ch.err != "":
		what = "OAuth: " + u.String() + " did not answer: " + ch.err
	case ch.status != http.StatusUnauthorized && ch.status != http.StatusForbidden:
		what = fmt.Sprintf("OAuth: %s answered %d without a token, and publishes no protected-resource metadata: it asks for no OAuth token", u, ch.status)
	}
	return nil, fail(what, strings.Join(tried, "\n"),
		"check the URL; a server that needs no token is probed without the OAuth flags; one with a token from elsewhere takes -H 'Authorization: Bearer …'")
}

// checkPRM: authorization_servers lists one at least (MUST), and the
// resource is the URL probed (RFC 9728 §3.3: a client MUST NOT use
// metadata whose resource does not match), or a leading part of it on
// the same origin at a path boundary, as the TypeScript SDK accepts.
func checkPRM(d *prmDoc, u *url.URL, ch challenged) (*prmDoc, error) {
	if len(d.AuthorizationServers) == 0 {
		return nil, fail("OAuth: the protected-resource metadata at "+d.from+" lists no authorization_servers (it MUST list one at least)",
			"the document, without authorization_servers", "the server's OAuth set-up is incomplete: tell its operator")
	}
	if d.Resource == "" {
		d.Resource = Canonical(u)
	}
	if !ResourceMatches(d.Resource, u) {
		return nil, fail(fmt.Sprintf("OAuth: the protected-resource metadata at %s is for resource %q, not %s: a client MUST NOT use it (RFC 9728 §3.3), and mcpprobe will not send a token for one resource to another", d.from, d.Resource, Canonical(u)),
			"resource "+d.Resource, "probe the URL the metadata names, or tell the server's operator")
	}
	_ = ch
	return d, nil
}

// Canonical is the URL as the spec's canonical server URI: scheme and
// host in lower case, no fragment, no trailing slash on an empty path.
func Canonical(u *url.URL) string {
	c := *u
	c.Scheme, c.Host, c.Fragment, c.RawFragment = strings.ToLower(c.Scheme), strings.ToLower(c.Host), "", ""
	if c.Path == "/" {
		c.Path, c.RawPath = "", ""
	}
	return c.String()
}

// ResourceMatches says whether resource names the endpoint u: the same
// canonical URL, or, on the same origin, a path that leads u's at a
// segment boundary.
func ResourceMatches(resource string, u *url.URL) bool {
	r, err := url.Parse(resource)
	if err != nil || r.Host == "" {
		return false
	}
	if Canonical(r) == Canonical(u) {
		return true
	}
	if originOf(r) != originOf(u) || r.RawQuery != "" {
		return false
	}
	rp := strings.TrimSuffix(r.Path, "/")
	return rp == "" || strings.HasPrefix(u.Path, rp+"/") || u.Path == rp
}

// asMeta is the authorization-server metadata (RFC 8414 §2) a client uses.
type asMeta struct {
	Issuer                  string   `json:"issuer"`
	AuthorizationEndpoint   string   `json:"authorization_endpoint"`
	TokenEndpoint           string   `json:"token_endpoint"`
	RegistrationEndpoint    string   `json:"registration_endpoint"`
	CodeChallengeMethods    []string `json:"code_challenge_methods_supported"`
	TokenAuthMethods        []string `json:"token_endpoint_auth_methods_supported"`
	SigningAlgs             []string `json:"token_endpoint_auth_signing_alg_values_supported"`
	CIMDSupported           bool     `json:"client_id_metadata_document_supported"`
	IssParameterSupported   bool     `json:"authorization_response_iss_parameter_supported"`
	GrantTypes              []string `json:"grant_types_supported"`
	hasCodeChallengeMethods bool
	from                    string
}

// serverMetadata fetches the first authorization server's metadata by the
// spec's discovery order and checks it: the issuer is the one the URL was
// built from (RFC 8414 §3.3), the endpoints are https (or loopback).
func (h *Host) serverMetadata(ctx context.Context, prm *prmDoc) (*asMeta, error) {
	issuer := prm.AuthorizationServers[0]
	if h.o.Issuer != "" {
		i := slices.IndexFunc(prm.AuthorizationServers, func(s string) bool { return sameIssuer(s, h.o.Issuer) })
		if i < 0 {
			return nil, fail(fmt.Sprintf("OAuth: --issuer %s is not one of the authorization servers the protected-resource metadata at %s names (%s): the resource accepts no token from it",
				h.o.Issuer, prm.from, strings.Join(prm.AuthorizationServers, ", ")), "authorization_servers in "+prm.from,
				"name one of them with --issuer, or check the URL")
		}
		issuer = prm.AuthorizationServers[i]
	}
	urls, err := AuthServerMetadataURLs(issuer)
	if err != nil {
		return nil, fail("OAuth: "+err.Error(), "authorization_servers in "+prm.from, "tell the server's operator")
	}
	var tried []string
	for _, m := range urls {
		ans := h.rec.doc(ctx, m, nil)
		tried = append(tried, m+": "+ans.String())
		if ans.err != nil || ans.status != http.StatusOK {
			h.rec.show(ans, false, "not a 200 answer")
			continue
		}
		md, err := ParseServerMetadata(ans.body)
		if err != nil {
			tried[len(tried)-1] = m + ": 200 but " + err.Error()
			h.rec.show(ans, false, err.Error())
			continue
		}
		md.from = m
		md, err = checkServerMetadata(md, m, issuer)
		if err != nil {
			h.rec.show(ans, false, "failed validation: "+err.Error())
			return nil, err
		}
		h.rec.show(ans, true, "")
		return md, nil
	}
	return nil, fail("OAuth: no authorization-server metadata found for "+issuer+" (RFC 8414 and OpenID Connect discovery, in the spec's order)",
		strings.Join(tried, "\n"), "check the authorization_servers of "+prm.from)
}

// checkServerMetadata: the issuer is the one the URL was built from, a
// token endpoint, every endpoint https (or loopback).
func checkServerMetadata(md *asMeta, m, issuer string) (*asMeta, error) {
	{
		if md.Issuer != issuer {
			return nil, fail(fmt.Sprintf("OAuth: the authorization-server metadata at %s names issuer %q, not %q, the one it was found for: a client MUST NOT use it (RFC 8414 §3.3)", m, md.Issuer, issuer),
				"issuer "+md.Issuer, "tell the authorization server's operator")
		}
		if md.TokenEndpoint == "" {
			return nil, fail("OAuth: the authorization-server metadata at "+m+" has no token_endpoint", "the document", "tell the authorization server's operator")
		}
		for _, e := range []string{md.AuthorizationEndpoint, md.TokenEndpoint, md.RegistrationEndpoint} {
			if e != "" && !secureOrLoopback(e) {
				return nil, fail("OAuth: the authorization server's endpoint "+e+" is not https: all authorization server endpoints MUST be served over HTTPS (2025-11-25 Authorization, Communication Security); mcpprobe sends no credential there",
					"the endpoint "+e, "tell the authorization server's operator")
			}
		}
		return md, nil
	}
}

// ParseServerMetadata reads authorization-server metadata; it notes
// whether code_challenge_methods_supported was there at all.
func ParseServerMetadata(b []byte) (*asMeta, error) {
	var md asMeta
	if err := json.Unmarshal(b, &md); err != nil {
		// The decoder's message quotes the document's bytes: not shown.
		return nil, fmt.Errorf("not JSON metadata")
	}
	var raw map[string]json.RawMessage
	_ = json.Unmarshal(b, &raw)
	_, md.hasCodeChallengeMethods = raw["code_challenge_methods_supported"]
	return &md, nil
}

// S256 says whether the metadata lists S256, and if not, why the client
// must refuse (2025-11-25 Authorization, Authorization Code Protection).
func (m *asMeta) S256() (bool, string) {
	for _, c := range m.CodeChallengeMethods {
		if c == "S256" {
			return true, ""
		}
	}
	if !m.hasCodeChallengeMethods {
		return false, "its metadata has no code_challenge_methods_supported: the authorization server does not support PKCE, and MCP clients MUST refuse to proceed"
	}
	return false, fmt.Sprintf("its code_challenge_methods_supported is %q, without S256: MCP clients MUST use S256", m.CodeChallengeMethods)
}

// secureOrLoopback: https, or http to this machine.
func secureOrLoopback(s string) bool {
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	return u.Scheme == "https" || (u.Scheme == "http" && isLoopback(u.Hostname()))
}

func isLoopback(host string) bool {
	return host == "127.0.0.1" || host == "localhost" || host == "::1"
}

// sameIssuer compares issuers as their identifiers: scheme and host in
// any case, a trailing slash or not.
func sameIssuer(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil {
		return a == b
	}
	return originOf(ua) == originOf(ub) && strings.TrimSuffix(ua.EscapedPath(), "/") == strings.TrimSuffix(ub.EscapedPath(), "/")
}
