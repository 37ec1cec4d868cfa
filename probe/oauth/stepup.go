package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mcpprobe/mcpprobe/probe/wwwauth"
	"slices"
	"strings"

	"github.com/mcpprobe/mcpprobe/transport"
	"golang.org/x/oauth2"
)

// clauseStepUp is what a step-up follows: "Clients SHOULD respond to
// scope errors by requesting a new access token with increased scopes"
// and "SHOULD implement retry limits".
const clauseStepUp = "MCP 2025-11-25 basic/authorization, Scope Challenge Handling (step-up: SHOULD re-authorize with the challenged scope, with retry limits)"

// maxStepUps bounds the re-authorizations of a run, whatever the
// requests: a server that asks for a new scope each time cannot keep the
// probe authorizing.
const maxStepUps = 2

// StepUp implements transport.StepUpper: after a 403 whose Bearer
// challenge says error="insufficient_scope", the token is replaced by one
// authorized for the challenge's scope together with the current one
// (2025-11-25 "Scope Challenge Handling"), by the grant the first was got
// with. It says why not otherwise: another error, no scope beyond the
// current, no retry left, a token already replaced.
func (h *Host) StepUp(ctx context.Context, refused string, challenge []string, tr *transport.Trace) error {
	h.refreshMu.Lock()
	defer h.refreshMu.Unlock()
	h.mu.Lock()
	tok, grant, current, done := h.tok, h.grant, h.scope, h.stepUps
	h.mu.Unlock()
	if tok == nil {
		return errors.New("no token")
	}
	if "Bearer "+tok.AccessToken != refused {
		return nil // another connection stepped up already
	}
	var asked, errCode string
	// The one parser of challenges the audit uses too; a malformed one
	// is skipped, what parsed before it counts.
	cs, _ := wwwauth.Parse(challenge)
	for _, ch := range cs {
		if ch.Scheme == "bearer" && ch.Params["error"] != "" && errCode == "" {
			errCode, asked = ch.Params["error"], ch.Params["scope"]
		}
	}
	if errCode != "insufficient_scope" {
		return fmt.Errorf("403 with error=%q, not insufficient_scope: no step-up", errCode)
	}
	want := unionScope(current, asked)
	if want == current {
		return fmt.Errorf("403 insufficient_scope asks for scope %q, which the token's (%q) already holds: no step-up", asked, current)
	}
	if done >= maxStepUps {
		return fmt.Errorf("403 insufficient_scope for %q after %d step-ups: no more (%s)", asked, done, clauseStepUp)
	}
	rec := h.rec
	if tr != nil {
		rec = newRecorder(h.o, tr, h.guard)
	}
	h.mu.Lock()
	h.scope, h.stepUps = want, done+1
	h.mu.Unlock()
	note := fmt.Sprintf("mcpprobe: step-up %d of at most %d: the server answered 403 insufficient_scope asking for scope %q; re-authorizing with %q (%s)", done+1, maxStepUps, asked, want, clauseStepUp)
	fmt.Fprintln(h.o.Prompt, safeText(note))
	if tr != nil {
		raw, _ := json.Marshal(map[string]any{"step_up": map[string]any{"n": done + 1, "challenged": asked, "scope": want, "clause": clauseStepUp}})
		tr.AddFrame(transport.Frame{Dir: transport.DirAuth, Raw: raw})
	}
	var next *oauth2.Token
	var err error
	switch {
	case h.o.Interactive:
		next, err = h.authorizationCode(ctx)
	case grant == "client_credentials":
		next, err = h.clientCredentialsWith(ctx, rec)
	default:
		err = fmt.Errorf("the token was got by %s, which cannot ask for a new scope: re-authorize with --scope %q", grant, want)
	}
	if err != nil {
		h.mu.Lock()
		h.scope = current
		h.mu.Unlock()
		return err
	}
	h.setToken(next)
	h.saveCache()
	return nil
}

// unionScope is current with every scope of asked it lacks, in order.
func unionScope(current, asked string) string {
	out := strings.Fields(current)
	for _, s := range strings.Fields(asked) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return strings.Join(out, " ")
}
