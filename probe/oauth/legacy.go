package oauth

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
)

// clauseLegacy is what the fallback follows: 2025-03-26 took the
// authorization base URL from the MCP server's URL without its path;
// clients MUST try RFC 8414 metadata there and, on 404, MUST use the
// default endpoints.
const clauseLegacy = "MCP 2025-03-26 basic/authorization, Server Metadata Discovery and Fallbacks for Servers without Metadata Discovery"

// legacyDiscovery is the 2025-03-26 way to the authorization server of a
// server that answered 401 and publishes no protected-resource metadata:
// the metadata at its origin's /.well-known/oauth-authorization-server,
// else, on 404, the default /authorize, /token and /register there. The
// authorization server is then the resource's own origin, so nothing
// leaves it.
func (h *Host) legacyDiscovery(ctx context.Context, u *url.URL) (*prmDoc, *asMeta, error) {
	origin := originOf(u)
	prm := &prmDoc{Resource: Canonical(u), AuthorizationServers: []string{origin}, from: "no protected-resource metadata (" + clauseLegacy + ")"}
	m := origin + "/.well-known/oauth-authorization-server"
	ans := h.rec.doc(ctx, m, nil)
	switch {
	case ans.err == nil && ans.status == http.StatusOK:
		md, err := ParseServerMetadata(ans.body)
		if err != nil {
			h.rec.show(ans, false, err.Error())
			return nil, nil, fail("OAuth: the authorization-server metadata at "+m+" (2025-03-26 fallback) is "+err.Error(), m+": "+ans.String(), "tell the server's operator")
		}
		md.from = m
		if md, err = checkServerMetadata(md, m, origin); err != nil {
			h.rec.show(ans, false, "failed validation: "+err.Error())
			return nil, nil, err
		}
		h.rec.show(ans, true, "")
		fmt.Fprintf(h.o.Prompt, "mcpprobe: no protected-resource metadata: authorization-server metadata at %s (%s)\n", SafeURL(m), clauseLegacy)
		return prm, md, nil
	case ans.err == nil && ans.status == http.StatusNotFound:
		h.rec.show(ans, false, "404: the default endpoints are used")
		// The defaults carry no code_challenge_methods_supported: a
		// 2025-03-26 client MUST use PKCE and S256 with them all the same.
		md := &asMeta{Issuer: origin, AuthorizationEndpoint: origin + "/authorize", TokenEndpoint: origin + "/token", RegistrationEndpoint: origin + "/register",
			CodeChallengeMethods: []string{"S256"}, hasCodeChallengeMethods: true, from: "the default endpoints at " + origin}
		fmt.Fprintf(h.o.Prompt, "mcpprobe: no protected-resource metadata and %s is 404: the default /authorize, /token, /register at %s (%s)\n", SafeURL(m), SafeURL(origin), clauseLegacy)
		return prm, md, nil
	default:
		h.rec.show(ans, false, "not a 200 or 404 answer")
		return nil, nil, fail("OAuth: no protected-resource metadata for "+u.String()+", and "+m+" answered neither metadata nor 404 (2025-03-26 fallback)",
			m+": "+ans.String(), "check the URL; tell the server's operator")
	}
}
