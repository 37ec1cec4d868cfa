package oauth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// client is the OAuth client mcpprobe is at the authorization server.
type client struct {
	id, secret string
	how        string // "pre-registered", "Client ID Metadata Document", "dynamic registration"
}

// authStyle is how the client authenticates at the token endpoint: a
// public client sends its id in the body; a confidential one HTTP Basic
// unless the server lists only client_secret_post (RFC 8414 §2: the
// default is client_secret_basic).
func (h *Host) authStyle() oauth2.AuthStyle {
	if h.client.secret == "" {
		return oauth2.AuthStyleInParams
	}
	m := h.as.TokenAuthMethods
	if len(m) > 0 && !slices.Contains(m, "client_secret_basic") && slices.Contains(m, "client_secret_post") {
		return oauth2.AuthStyleInParams
	}
	return oauth2.AuthStyleInHeader
}

func (h *Host) scopes() []string { return strings.Fields(h.scope) }

// tokenError is a refused token request in the three parts.
func (h *Host) tokenError(grant string, err error) error {
	got := err.Error()
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		got = fmt.Sprintf("%d", re.Response.StatusCode)
		if re.ErrorCode != "" {
			got += " " + re.ErrorCode
		}
		if re.ErrorDescription != "" {
			got += ": " + re.ErrorDescription
		}
	}
	try := map[string]string{
		"client_credentials": "check --client-id and --client-secret-env (or --client-key: its public key registered for the client), and that the client may use client_credentials",
		"refresh_token":      "the refresh token may have expired or been used: sign in again with --oauth (and keep it with --token-cache FILE)",
		"authorization_code": "run it again; if it fails the same way, the authorization server refuses this client or redirect",
	}[grant]
	return fail("OAuth: the token endpoint "+h.as.TokenEndpoint+" refused the "+grant+" request", got, try)
}

// clientCredentials is the client_credentials grant with the resource
// parameter (RFC 8707) and the chosen scope.
func (h *Host) clientCredentials(ctx context.Context) (*oauth2.Token, error) {
	return h.clientCredentialsWith(ctx, h.rec)
}

func (h *Host) clientCredentialsWith(ctx context.Context, rec *recorder) (*oauth2.Token, error) {
	if err := h.mayCredential(h.client.secret != "", false); err != nil {
		return nil, err
	}
	params := url.Values{"resource": {h.resource}}
	if h.o.ClientKey != nil {
		if err := h.assertionParams(params); err != nil {
			return nil, err
		}
	}
	cfg := clientcredentials.Config{ClientID: h.client.id, ClientSecret: h.client.secret, TokenURL: h.as.TokenEndpoint,
		Scopes: h.scopes(), AuthStyle: h.authStyle(), EndpointParams: params}
	ctx, cancel := rec.bounded(context.WithValue(ctx, oauth2.HTTPClient, rec.client))
	defer cancel()
	tok, err := cfg.Token(ctx)
	if err != nil {
		return nil, h.tokenError("client_credentials", err)
	}
	return checked(tok)
}

// refresh exchanges a refresh token, with the resource parameter: the
// oauth2 library's own refresher sends no extra parameter, so the
// request is its client_credentials one with the grant type overridden,
// which it allows.
func (h *Host) refresh(ctx context.Context, rt string) (*oauth2.Token, error) {
	return h.refreshWith(ctx, h.rec, rt)
}

func (h *Host) refreshWith(ctx context.Context, rec *recorder, rt string) (*oauth2.Token, error) {
	if err := h.mayCredential(h.client.secret != "", rt == h.o.RefreshToken); err != nil {
		return nil, err
	}
	params := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "resource": {h.resource}}
	if h.o.ClientKey != nil {
		if err := h.assertionParams(params); err != nil {
			return nil, err
		}
	}
	cfg := clientcredentials.Config{ClientID: h.client.id, ClientSecret: h.client.secret, TokenURL: h.as.TokenEndpoint,
		AuthStyle: h.authStyle(), EndpointParams: params}
	ctx, cancel := rec.bounded(context.WithValue(ctx, oauth2.HTTPClient, rec.client))
	defer cancel()
	tok, err := cfg.Token(ctx)
	if err != nil {
		return nil, h.tokenError("refresh_token", err)
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = rt
	}
	return checked(tok)
}

func checked(tok *oauth2.Token) (*oauth2.Token, error) {
	if tok.AccessToken == "" {
		return nil, fail("OAuth: the token endpoint's answer has no access_token", "a token answer without access_token", "tell the authorization server's operator")
	}
	if tt := tok.Type(); !strings.EqualFold(tt, "Bearer") {
		return nil, fail("OAuth: the token endpoint issued a "+tt+" token; mcpprobe sends Bearer tokens only", "token_type "+tt, "DPoP and other token types are not supported")
	}
	return tok, nil
}

// authorizationCode is the flow of a person at a browser: PKCE S256
// (refused without it), a client (registered in the spec's order), the
// authorization URL printed (and opened with --oauth-browser-cmd), the
// code from the loopback redirect, state and iss checked, then the code
// exchanged with the verifier and the resource.
func (h *Host) authorizationCode(ctx context.Context) (*oauth2.Token, error) {
	if ok, why := h.as.S256(); !ok {
		return nil, fail("OAuth: mcpprobe refuses to authorize at "+h.issuer+": "+why+" (2025-11-25 Authorization, Authorization Code Protection)",
			"the authorization-server metadata at "+h.as.from, "the authorization server must support PKCE with S256; tell its operator")
	}
	if h.as.AuthorizationEndpoint == "" {
		return nil, fail("OAuth: the authorization-server metadata at "+h.as.from+" has no authorization_endpoint", "the document",
			"pass --client-id and --client-secret-env for client_credentials instead, if the server allows it")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fail("OAuth: cannot listen on 127.0.0.1 for the browser's redirect: "+err.Error(), "nothing: no request was sent", "free a port on the loopback interface")
	}
	defer l.Close()
	redirect := "http://" + l.Addr().String() + "/callback"
	if err := h.register(ctx, redirect); err != nil {
		return nil, err
	}
	verifier := oauth2.GenerateVerifier()
	h.o.OnSecret(verifier)
	state := randomState()
	cfg := oauth2.Config{ClientID: h.client.id, ClientSecret: h.client.secret, RedirectURL: redirect, Scopes: h.scopes(),
		Endpoint: oauth2.Endpoint{AuthURL: h.as.AuthorizationEndpoint, TokenURL: h.as.TokenEndpoint, AuthStyle: h.authStyle()}}
	// The metadata's endpoint is the server's text: a C1 or bidi control
	// in it could reorder what the user reads before opening it.
	authURL := SafeURL(cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", h.resource)))
	got := make(chan url.Values, 1)
	srv := &http.Server{ReadHeaderTimeout: h.o.Timeout, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		if c := q.Get("code"); c != "" {
			h.o.OnSecret(c)
		}
		select {
		case got <- q:
		default:
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "mcpprobe: the authorization server answered; you can close this window.")
	})}
	go func() { _ = srv.Serve(l) }()
	defer func() { _ = srv.Close() }()
	fmt.Fprintf(h.o.Prompt, "mcpprobe: to authorize at %s, open this URL in a browser (waiting %s for its redirect to %s):\n  %s\n", SafeURL(h.issuer), h.o.Wait, redirect, authURL)
	wait, cancel := context.WithTimeout(ctx, h.o.Wait)
	defer cancel()
	if len(h.o.BrowserCmd) > 0 {
		cmd := exec.CommandContext(wait, h.o.BrowserCmd[0], append(h.o.BrowserCmd[1:], authURL)...)
		if err := cmd.Start(); err != nil {
			fmt.Fprintf(h.o.Prompt, "mcpprobe: --oauth-browser-cmd did not start (%v): open the URL yourself\n", err)
		} else {
			go func() { _ = cmd.Wait() }()
		}
	}
	var q url.Values
	select {
	case q = <-got:
	case <-wait.Done():
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fail(fmt.Sprintf("OAuth: no redirect from the browser within %s", h.o.Wait), "nothing on "+redirect,
			"open the URL printed above and sign in, or give more time with --oauth-wait")
	}
	if e := q.Get("error"); e != "" {
		return nil, fail("OAuth: the authorization server refused the authorization: "+e, q.Get("error_description"), "check the client and the scope asked ("+h.scope+")")
	}
	switch {
	case q.Get("state") != state:
		return nil, fail("OAuth: the redirect's state is not the one sent: the answer is discarded", "state "+q.Get("state"), "run it again; a redirect you did not start may have reached the listener")
	case q.Get("iss") != "" && q.Get("iss") != h.issuer, q.Get("iss") == "" && h.as.IssParameterSupported:
		return nil, fail("OAuth: the redirect's iss is not the issuer "+h.issuer+" (RFC 9207)", "iss "+q.Get("iss"), "run it again; tell the authorization server's operator if it repeats")
	case q.Get("code") == "":
		return nil, fail("OAuth: the redirect carried no code", "the redirect's query has no code", "run it again")
	}
	h.setGrant("authorization_code (" + h.client.how + ")")
	if err := h.mayCredential(h.client.secret != "", false); err != nil {
		return nil, err
	}
	xctx, xcancel := h.rec.bounded(context.WithValue(ctx, oauth2.HTTPClient, h.rec.client))
	defer xcancel()
	tok, err := cfg.Exchange(xctx, q.Get("code"), oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", h.resource))
	if err != nil {
		return nil, h.tokenError("authorization_code", err)
	}
	return checked(tok)
}

func randomState() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// register finds the client, in the order the spec recommends
// (2025-11-25 Authorization, Client Registration Approaches): a
// pre-registered one (--client-id), a Client ID Metadata Document (a URL
// --client-id, where the server advertises
// client_id_metadata_document_supported), dynamic registration (RFC 7591)
// where the server has a registration_endpoint.
func (h *Host) register(ctx context.Context, redirect string) error {
	id := h.o.ClientID
	switch {
	case id != "" && !IsMetadataURL(id):
		h.client = client{id: id, secret: h.o.ClientSecret, how: "pre-registered client"}
		return nil
	case id != "" && !h.as.CIMDSupported:
		return fail("OAuth: --client-id "+id+" is a Client ID Metadata Document, and the authorization server does not advertise client_id_metadata_document_supported",
			"the authorization-server metadata at "+h.as.from, "pass a pre-registered client id, or no --client-id to register dynamically")
	case id != "":
		u, _ := url.Parse(id)
		if u.Scheme != "https" && !isLoopback(u.Hostname()) {
			return fail("OAuth: a Client ID Metadata Document's URL MUST be https: "+id, "nothing: no request was sent", "host the document at an https URL")
		}
		h.client = client{id: id, how: "Client ID Metadata Document"}
		return nil
	case h.as.RegistrationEndpoint != "":
		return h.dynamicRegistration(ctx, redirect)
	}
	return fail("OAuth: the authorization server "+h.issuer+" offers no way to register mcpprobe: no registration_endpoint, and a Client ID Metadata Document needs its URL as --client-id",
		"the authorization-server metadata at "+h.as.from, "register a client with the server's operator and pass --client-id (and --client-secret-env)")
}

// IsMetadataURL says whether a client id is a Client ID Metadata
// Document's URL rather than an opaque id.
func IsMetadataURL(id string) bool {
	u, err := url.Parse(id)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && u.Path != "" && u.Path != "/"
}

// dynamicRegistration registers a public native client with the loopback
// redirect (RFC 7591; application_type as 2026-07-28 requires).
func (h *Host) dynamicRegistration(ctx context.Context, redirect string) error {
	body, _ := json.Marshal(map[string]any{
		"client_name": "mcpprobe", "redirect_uris": []string{redirect},
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
		"token_endpoint_auth_method": "none", "application_type": "native",
	})
	ans := h.rec.do(ctx, http.MethodPost, h.as.RegistrationEndpoint, map[string]string{"Content-Type": "application/json", "Accept": "application/json"}, body, nil)
	if ans.err != nil || (ans.status != http.StatusCreated && ans.status != http.StatusOK) {
		return fail("OAuth: dynamic client registration at "+h.as.RegistrationEndpoint+" failed", withheldAnswer(ans, "not a registration"),
			"register a client with the server's operator and pass --client-id")
	}
	var reg struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	if err := json.Unmarshal(ans.body, &reg); err != nil || reg.ClientID == "" {
		return fail("OAuth: the registration answer has no client_id", withheldAnswer(ans, "no client_id"), "tell the authorization server's operator")
	}
	h.client = client{id: reg.ClientID, secret: reg.ClientSecret, how: "dynamic registration"}
	return nil
}

// withheldAnswer is an answer that failed validation as an error shows
// it: what was wrong, not what it held.
func withheldAnswer(a answer, why string) string {
	if a.err != nil {
		return a.String()
	}
	return Withheld(a.status, a.header.Get("Content-Type"), len(a.body), why)
}

// mayCredential decides whether the token endpoint may receive the
// credentials the user gave (a client secret, a refresh token from the
// environment): only on the resource's own origin or the origin of the
// authorization server the user named (--issuer). The metadata that names
// the token endpoint is the server's word, and a server could name any
// origin to collect them. When they may go, stderr says where they went.
func (h *Host) mayCredential(secret, refresh bool) error {
	// A secret the authorization server issued by dynamic registration is
	// its own: it goes back to it. Only the user's is guarded.
	secret = secret && h.o.ClientSecret != "" && h.client.secret == h.o.ClientSecret
	if !secret && !refresh {
		return nil
	}
	var what []string
	if secret {
		what = append(what, "client secret (--client-secret-env)")
	}
	if refresh {
		what = append(what, "refresh token (--refresh-token-env)")
	}
	te, err := url.Parse(h.as.TokenEndpoint)
	if err != nil || te.Host == "" {
		return fail("OAuth: the token endpoint "+h.as.TokenEndpoint+" is not a URL", "the authorization-server metadata at "+h.as.from, "tell the authorization server's operator")
	}
	to := originOf(te)
	allowed := []string{}
	if u, err := url.Parse(h.o.URL); err == nil {
		allowed = append(allowed, originOf(u))
	}
	if is, err := url.Parse(h.o.Issuer); err == nil && h.o.Issuer != "" {
		allowed = append(allowed, originOf(is))
	}
	if !slices.Contains(allowed, to) {
		return fail(fmt.Sprintf("OAuth: mcpprobe refuses to send the %s to %s: the authorization server %s, which the resource's metadata names, asks for it at its token endpoint %s, and a credential goes only to the resource's own origin (%s) or to an authorization server you named with --issuer",
			strings.Join(what, " and "), to, h.issuer, h.as.TokenEndpoint, allowed[0]),
			"authorization_servers naming "+h.issuer+"; token_endpoint "+h.as.TokenEndpoint,
			"if you trust "+h.issuer+" with it, name it: --issuer "+h.issuer)
	}
	for _, w := range what {
		line := fmt.Sprintf("mcpprobe: sent %s to %s (token endpoint)\n", strings.TrimSuffix(strings.SplitN(w, " (", 2)[0], " "), to)
		h.mu.Lock()
		seen := h.told[line]
		h.told[line] = true
		h.mu.Unlock()
		if !seen {
			fmt.Fprint(h.o.Prompt, line)
		}
	}
	return nil
}

// SafeURL percent-encodes what a terminal acts on or shows out of order
// in a URL: C0 and C1 controls, DEL, format characters (bidi embeddings,
// overrides and isolates, zero-width characters) and the line and
// paragraph separators, the characters reports/terminal.Escape escapes. A browser
// reads the encoded URL as the same one; a person sees every character.
func SafeURL(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				fmt.Fprintf(&b, "%%%02X", s[i])
				continue
			}
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || r == ' ' || (r >= 0x80 && r <= 0x9f) || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029:
			for _, c := range []byte(string(r)) {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// safeText writes the characters SafeURL encodes as \u escapes (\x for
// bytes that are not UTF-8), leaving the rest, spaces included, as is.
func safeText(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				fmt.Fprintf(&b, `\x%02x`, s[i])
				continue
			}
			b.WriteRune(r)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
