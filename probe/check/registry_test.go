package check

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/mcpspec"
)

// Every check names a clause for each era it judges, with a section URL
// of that era's text, and says why for each era it does not.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, id := range IDs() {
		if seen[id] {
			t.Errorf("id %s twice", id)
		}
		seen[id] = true
	}
	for _, c := range Registry() {
		for _, e := range Eras {
			cl, judged := c.Clauses[e], c.Judges(e)
			switch {
			case judged && cl == nil:
				t.Errorf("%s judges %s without a clause", c.ID, e)
			case judged && !strings.HasPrefix(cl.URL, "https://modelcontextprotocol.io/specification/"+era2version(e)+"/") &&
				// an official extension's text for the era (tasks)
				!strings.HasPrefix(cl.URL, "https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/"+era2version(e)+"/") &&
				// an experimental extension's text, pinned to a commit, or its SEP's (secure parameters, skills, cards, events): not of one era
				!extensionText(cl.URL):
				t.Errorf("%s (%s) cites %s, not its era's text", c.ID, e, cl.URL)
			case judged && cl.Text == "":
				t.Errorf("%s (%s) quotes nothing", c.ID, e)
			case !judged && c.NotIn[e] == "":
				t.Errorf("%s does not judge %s and does not say why", c.ID, e)
			}
		}
	}
}

// extensionText: the text of an extension that is not of one era (server
// cards, events), pinned to a commit or to its SEP's pull request.
func extensionText(u string) bool {
	return strings.HasPrefix(u, "https://github.com/modelcontextprotocol/experimental-ext-") && strings.Contains(u, "/blob/") ||
		strings.HasPrefix(u, "https://github.com/modelcontextprotocol/modelcontextprotocol/pull/") ||
		strings.HasPrefix(u, "https://github.com/modelcontextprotocol/modelcontextprotocol/blob/") ||
		// an extension whose text is a SEP, one for every era (skills)
		strings.HasPrefix(u, "https://modelcontextprotocol.io/seps/")
}

// The registry's order is what --list, the verdict columns and a
// baseline show; it was once the order of the files' init functions, and
// building it lazily must not move an id.
func TestRegistryOrder(t *testing.T) {
	want := []string{
		"lifecycle.initialize-result",
		"lifecycle.version-negotiation",
		"lifecycle.discover-result",
		"lifecycle.discover-server-info",
		"lifecycle.result-type",
		"ping.empty-result",
		"tools.list-served",
		"tools.input-schema-object",
		"prompts.list-served",
		"resources.list-served",
		"logging.set-level-served",
		"completion.complete-served",
		"resources.subscribe-served",
		"resources.unsubscribe-served",
		"tools.call-result",
		"tools.structured-content",
		"resources.read-result",
		"prompts.get-result",
		"tools.x-mcp-header",
		"http.notification-accepted",
		"http.request-content-type",
		"http.accept-negotiation",
		"http.protocol-version-header",
		"http.session-id-charset",
		"http.session-required",
		"http.session-unknown",
		"http.session-delete",
		"http.origin",
		"http.get-stream",
		"http.sse-priming",
		"http.sse-resume",
		"http.header-mismatch",
		"tools.list-deterministic",
		"caching.ttl-ms",
		"caching.cache-scope",
		"versioning.unsupported-version",
		"mrtr.round-trip",
		"mrtr.tampered-state",
		"tasks.extension-shape",
		"subscriptions.listen",
		"logging.per-request-level",
		"mrtr.declared-inputs",
		"resources.read-unknown",
		"catalog.shape",
		"catalog.entries",
		"server-card.shape",
		"server-card.media-type",
		"server-card.cors",
		"server-card.cache",
		"server-card.https",
		"server-card.consistent",
		"events.gating",
		"events.list-shape",
		"events.poll",
		"mrtr.supported-requests",
		"secure-params.schema-object",
		"secure-params.no-overlap",
		"secure-params.omit-unnegotiated",
		"secure-params.call-unnegotiated",
		"secure-params.collision",
		"secure-params.no-echo",
		"elicitation.request-shape",
		"sampling.request-shape",
		"logging.message-declared",
		"progress.known-token",
		"skills.capability",
		"skills.list",
		"skills.get",
		"skills.frontmatter",
		"skills.uri",
		"skills.digest",
		"skills.size",
		"skills.directory",
		"skills.cache-hints",
	}
	var got []string
	for _, c := range Registry() {
		got = append(got, c.ID)
	}
	if !slices.Equal(got, want) {
		t.Errorf("registry order\n got %q\nwant %q", got, want)
	}
}

// The clauses' URLs are constants (so the compiler lays them out, not
// the init): their prefix must stay mcpspec.URL's.
func TestSpecPrefix(t *testing.T) {
	for _, c := range []struct{ got, v string }{{spec1, v1}, {spec2, v2}} {
		if want := mcpspec.URL(c.v, ""); c.got != want {
			t.Errorf("spec prefix of %s is %q, mcpspec.URL says %q", c.v, c.got, want)
		}
	}
}
