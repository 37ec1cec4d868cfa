package check

import (
	"strings"
	"testing"
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
	for _, c := range Registry {
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
