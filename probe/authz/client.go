package authz

import (
	"context"
	"errors"
	"net/http"
	"net/url"

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
