package budget

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestShadowsOnRealCorpus reads the 44 real servers of the lint corpus
// (probe/hidden/testdata/corpus) as one host config: every pair the
// shadowing check reports is listed here, reviewed as two tools a model
// could take for each other, so a rule change that adds or drops one
// shows. docs/reference.md states the figures.
func TestShadowsOnRealCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "hidden", "testdata", "corpus", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	sort.Strings(files)
	var servers []ServerTools
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		st := ServerTools{Name: strings.TrimSuffix(filepath.Base(f), ".json")}
		for _, tool := range gjson.GetBytes(b, "tools").Array() {
			st.Tools = append(st.Tools, tool.Get("name").String())
			st.Descriptions = append(st.Descriptions, tool.Get("description").String())
		}
		servers = append(servers, st)
	}
	tot := Sum(servers, nil)
	var got []string
	for _, s := range tot.Shadows {
		got = append(got, s.Why+" "+s.A.Server+"/"+s.A.Tool+" "+s.B.Server+"/"+s.B.Tool)
	}
	want := []string{
		// all true: each pair offers the model two tools for one job
		"same-job browsermcp_mcp/browser_screenshot executeautomation_playwright-mcp-server/playwright_screenshot",
		"same-job browsermcp_mcp/browser_screenshot modelcontextprotocol_server-puppeteer/puppeteer_screenshot",
		"same-job chrome-devtools-mcp/take_screenshot executeautomation_playwright-mcp-server/playwright_screenshot",
		"same-job chrome-devtools-mcp/take_screenshot modelcontextprotocol_server-puppeteer/puppeteer_screenshot",
		"same-job executeautomation_playwright-mcp-server/playwright_screenshot modelcontextprotocol_server-puppeteer/puppeteer_screenshot",
		"same-job executeautomation_playwright-mcp-server/playwright_fill modelcontextprotocol_server-puppeteer/puppeteer_fill",
		"same-job executeautomation_playwright-mcp-server/playwright_select modelcontextprotocol_server-puppeteer/puppeteer_select",
		"same-job executeautomation_playwright-mcp-server/playwright_evaluate modelcontextprotocol_server-puppeteer/puppeteer_evaluate",
		"same-job go_mark3labs_mcp-go-everything/longRunningOperation modelcontextprotocol_server-everything/trigger-long-running-operation",
		"one-edit pinecone-database_mcp/search-docs sentry_mcp-server/search_docs",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("shadows on the corpus:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(tot.Collisions) != 37 {
		t.Errorf("%d name collisions, want 37", len(tot.Collisions))
	}
}
