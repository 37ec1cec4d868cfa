package authz

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// otherResource is the resource a foreign token is asked for: a sibling
// of the endpoint on its own origin, which no server answers for.
const otherResource = "/mcpprobe-other-resource"

// clientCredentials gets the tokens not given, by the client_credentials
// grant at the authorization server the metadata names (RFC 8707 resource
// parameter: the endpoint's URL for the baseline, a sibling for the
// foreign one). Each token is handed to OnSecret before it is used.
func (a *auditor) clientCredentials() {
	if a.o.ClientID == "" || a.tokenEndpoint == "" {
		return
	}
	if err := a.mayCredential(); err != nil {
		a.ccNote, a.ccErr, a.foreignErr = "nothing: the client secret stays here", err, err
		if a.o.Notify != nil {
			a.o.Notify("mcpprobe: " + err.Error())
		}
		return
	}
	mcpURL := canonical(a.u.String())
	if a.o.Token == "" {
		tok, err := a.fetchToken(mcpURL)
		a.ccNote = "token by client_credentials at " + a.tokenEndpoint
		if err != nil {
			a.ccErr = err
		} else {
			a.o.Token = tok
		}
	}
	if a.o.ForeignToken == "" {
		origin := (&url.URL{Scheme: a.u.Scheme, Host: a.u.Host}).String()
		other := canonical(origin) + otherResource
		tok, err := a.fetchToken(other)
		if err != nil {
			a.foreignErr = err
		} else {
			a.o.ForeignToken, a.foreignNote = tok, "token for "+other+" by client_credentials"
			a.foreignResource, a.validResource = other, mcpURL
		}
	}
}

func (a *auditor) fetchToken(resource string) (string, error) {
	cfg := clientcredentials.Config{ClientID: a.o.ClientID, ClientSecret: a.o.ClientSecret, TokenURL: a.tokenEndpoint,
		EndpointParams: url.Values{"resource": {resource}}}
	ctx, cancel := context.WithTimeout(a.ctx, a.o.Timeout)
	defer cancel()
	rec := &recording{next: a.client.Transport, a: a}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, &http.Client{Transport: rec, CheckRedirect: a.client.CheckRedirect})
	tok, err := cfg.Token(ctx)
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.ErrorCode != "" {
			return "", errors.New(re.ErrorCode + " " + re.ErrorDescription)
		}
		return "", err
	}
	if tok.AccessToken == "" {
		return "", errors.New("no access_token in the answer")
	}
	if a.o.OnSecret != nil {
		a.o.OnSecret(tok.AccessToken)
		if tok.RefreshToken != "" {
			a.o.OnSecret(tok.RefreshToken)
		}
		if id, ok := tok.Extra("id_token").(string); ok && id != "" {
			a.o.OnSecret(id)
		}
	}
	return tok.AccessToken, nil
}

// recording keeps each token request as an exchange, its body not: it
// holds the token.
type recording struct {
	next http.RoundTripper
	a    *auditor
}

func (r *recording) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	ex := Exchange{Probe: "token", Method: req.Method, URL: req.URL.String(), Auth: "--client-id, --client-secret-env"}
	if err != nil {
		ex.Error = err.Error()
	} else {
		ex.Status, ex.Headers, ex.Body = resp.StatusCode, resp.Header, "<token response: not kept>"
	}
	r.a.record(ex)
	return resp, err
}

// mayCredential decides whether the token endpoint may receive the client
// secret: only on the endpoint's own origin or on the origin of the
// authorization server the user named (--issuer). The metadata that names
// it is the server's word, and a server could name any origin to collect
// the secret. When it may go, Notify says where.
func (a *auditor) mayCredential() error {
	if a.o.ClientSecret == "" {
		return nil
	}
	te, err := url.Parse(a.tokenEndpoint)
	if err != nil || te.Host == "" {
		return fmt.Errorf("the token endpoint %q is not a URL", a.tokenEndpoint)
	}
	to := originOf(te)
	allowed := []string{originOf(a.u)}
	if is, err := url.Parse(a.o.Issuer); err == nil && a.o.Issuer != "" {
		allowed = append(allowed, originOf(is))
	}
	if !slices.Contains(allowed, to) {
		return fmt.Errorf("refused to send the client secret (--client-secret-env) to %s: the authorization server %s, which the resource's metadata names, asks for it at its token endpoint %s, and a credential goes only to the endpoint's own origin (%s) or to an authorization server named with --issuer (if you trust it: --issuer %s)",
			to, a.tokenIssuer, a.tokenEndpoint, allowed[0], a.tokenIssuer)
	}
	if a.o.Notify != nil && !a.told {
		a.told = true
		a.o.Notify(fmt.Sprintf("mcpprobe: sent client secret to %s (token endpoint)", to))
	}
	return nil
}

func originOf(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}
