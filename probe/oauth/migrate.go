package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"

	"github.com/mcpprobe/mcpprobe/probe/wwwauth"
	"github.com/mcpprobe/mcpprobe/transport"
	"golang.org/x/oauth2"
)

// clauseMigrate is what a change of authorization server follows.
const clauseMigrate = "MCP 2026-07-28 basic/authorization/client-registration, Authorization Server Binding (when the protected-resource metadata names another authorization server, clients MUST NOT reuse client credentials from a different authorization server and MUST re-register with the new one)"

// maxMigrations bounds the changes of authorization server a run follows,
// whatever the metadata says: with an issuer never returned to (left), a
// metadata document that names another one at each fetch cannot keep the
// probe registering and authorizing.
const maxMigrations = 2

// RefreshAfter implements transport.Rechallenger: after a 401 on a token
// the server accepted before, the protected-resource metadata is read
// again; when it now names another authorization server, the probe
// re-discovers, re-registers and re-authorizes there, its client at the
// old one forgotten (clauseMigrate), at most once per change and
// maxMigrations a run. Otherwise the token is refreshed as Refresh does.
func (h *Host) RefreshAfter(ctx context.Context, stale string, challenge []string, tr *transport.Trace) error {
	moved, err := h.migrate(ctx, stale, challenge, tr)
	if moved || err != nil {
		return err
	}
	return h.Refresh(ctx, stale, tr)
}

// migrate follows a change of authorization server; moved says whether
// the metadata named another one (and err whether following it failed).
func (h *Host) migrate(ctx context.Context, stale string, challenge []string, tr *transport.Trace) (moved bool, err error) {
	h.refreshMu.Lock()
	defer h.refreshMu.Unlock()
	h.mu.Lock()
	tok, from, rec, legacy := h.tok, h.issuer, h.rec, h.noPRM
	h.mu.Unlock()
	if tok == nil || "Bearer "+tok.AccessToken != stale || legacy || rec == nil {
		// Replaced already (Refresh says so too), or found without
		// protected-resource metadata: no document to have changed.
		return false, nil
	}
	u, perr := url.Parse(h.o.URL)
	if perr != nil {
		return false, nil
	}
	var ch challenged
	cs, _ := wwwauth.Parse(challenge)
	for _, c := range cs {
		if c.Scheme == "bearer" {
			if ch.resourceMetadata == "" {
				ch.resourceMetadata = c.Params["resource_metadata"]
			}
			if ch.scope == "" {
				ch.scope = c.Params["scope"]
			}
		}
	}
	if tr != nil {
		rec = newRecorder(h.o, tr, h.guard)
	}
	// The exchanges of a migration are recorded in the trace of the
	// connection that was refused; refreshMu keeps every other user of
	// h.rec out meanwhile.
	saved := h.snapshot()
	h.mu.Lock()
	h.rec = rec
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.rec = saved.rec
		h.mu.Unlock()
	}()
	prm, perr2 := h.resourceMetadata(ctx, u, ch)
	h.noPRM = false
	if perr2 != nil {
		return false, nil // no metadata to compare: refreshed as before
	}
	to := h.pickIssuer(prm)
	if to == "" || sameIssuer(to, from) {
		return false, nil
	}
	if err := h.mayMigrate(from, to); err != nil {
		return true, err
	}
	n := h.migrations + 1
	note := fmt.Sprintf("mcpprobe: the server refused the token from %s, and its protected-resource metadata (%s) now names the authorization server %s: re-discovering, re-registering and re-authorizing there, the client at %s not reused (change %d of at most %d; %s)",
		SafeURL(from), SafeURL(prm.from), SafeURL(to), SafeURL(from), n, maxMigrations, clauseMigrate)
	fmt.Fprintln(h.o.Prompt, safeText(note))
	if tr != nil {
		raw, _ := json.Marshal(map[string]any{"authorization_server_change": map[string]any{"n": n, "from": from, "to": to, "metadata": prm.from, "clause": clauseMigrate}})
		tr.AddFrame(transport.Frame{Dir: transport.DirAuth, Raw: raw})
	}
	h.mu.Lock()
	h.migrations, h.left = n, append(h.left, from)
	h.mu.Unlock()
	as, err := h.serverMetadata(ctx, prm)
	if err != nil {
		h.restore(saved)
		return true, err
	}
	h.mu.Lock()
	h.resource, h.issuer, h.as = prm.Resource, as.Issuer, as
	h.scope = chooseScope(h.o.Scope, ch.scope, prm.ScopesSupported)
	// Nothing of the old server's goes to the new one: not its client,
	// not its refresh token (setToken keeps the old one otherwise).
	h.client, h.tok, h.grant, h.cached = client{}, nil, "", false
	h.mu.Unlock()
	next, err := h.authorizationCode(ctx)
	if err != nil {
		h.restore(saved)
		return true, err
	}
	h.setToken(next)
	h.saveCache()
	return true, nil
}

// mayMigrate refuses a change the run cannot follow: one past the bound,
// one back to a server the run left (metadata that flips), one for which
// the user's credentials were given (they belong to the old server).
func (h *Host) mayMigrate(from, to string) error {
	h.mu.Lock()
	n, left := h.migrations, slices.Clone(h.left)
	h.mu.Unlock()
	back := slices.ContainsFunc(left, func(s string) bool { return sameIssuer(s, to) })
	switch {
	case back:
		return fail(fmt.Sprintf("OAuth: the protected-resource metadata names the authorization server %s again, which this run left for %s: mcpprobe follows each change once and does not go back (%s)", to, from, clauseMigrate),
			"authorization_servers naming "+to, "the resource's metadata changes between fetches: tell its operator")
	case n >= maxMigrations:
		return fail(fmt.Sprintf("OAuth: the protected-resource metadata names another authorization server (%s) after %d changes this run: no more (%s)", to, n, clauseMigrate),
			"authorization_servers naming "+to, "tell the resource's operator; run again once its metadata settles")
	case !h.o.Interactive:
		return fail(fmt.Sprintf("OAuth: the authorization server changed from %s to %s, and the credentials given (--client-id with --client-secret-env or --refresh-token-env) are bound to %s: a client MUST NOT reuse them at another (%s)", from, to, from, clauseMigrate),
			"authorization_servers naming "+to, "get credentials from "+to+" and pass them, or sign in with --oauth")
	case h.o.ClientID != "" && !IsMetadataURL(h.o.ClientID):
		return fail(fmt.Sprintf("OAuth: the authorization server changed from %s to %s, and --client-id %s was registered at %s: a pre-registered client is bound to its authorization server (%s)", from, to, h.o.ClientID, from, clauseMigrate),
			"authorization_servers naming "+to, "register a client at "+to+" and pass it with --client-id, or leave --client-id out to register dynamically")
	}
	return nil
}

// pickIssuer is the authorization server serverMetadata would use from
// prm: --issuer's when it is listed, else the first.
func (h *Host) pickIssuer(prm *prmDoc) string {
	if len(prm.AuthorizationServers) == 0 {
		return ""
	}
	if h.o.Issuer != "" {
		if i := slices.IndexFunc(prm.AuthorizationServers, func(s string) bool { return sameIssuer(s, h.o.Issuer) }); i >= 0 {
			return prm.AuthorizationServers[i]
		}
	}
	return prm.AuthorizationServers[0]
}

// hostState is what a failed migration puts back.
type hostState struct {
	resource, issuer, scope, grant string
	as                             *asMeta
	client                         client
	tok                            *oauth2.Token
	cached                         bool
	rec                            *recorder
}

func (h *Host) snapshot() hostState {
	h.mu.Lock()
	defer h.mu.Unlock()
	return hostState{h.resource, h.issuer, h.scope, h.grant, h.as, h.client, h.tok, h.cached, h.rec}
}

func (h *Host) restore(s hostState) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.resource, h.issuer, h.scope, h.grant, h.as, h.client, h.tok, h.cached = s.resource, s.issuer, s.scope, s.grant, s.as, s.client, s.tok, s.cached
}
