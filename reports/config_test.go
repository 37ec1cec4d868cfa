package reports

import (
	"bytes"
	"testing"
)

func TestDemote(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"first heading takes the server's name", "# orders 1.0 — mcpprobe report\n\ntext\n", "## srv: orders 1.0 — mcpprobe report\n\ntext\n"},
		{"later headings a level down, suffixed", "# T\n## Findings\n### Tools\n", "## srv: T\n### Findings (srv)\n#### Tools (srv)\n"},
		{"nothing inside a fence", "# T\n```text\n# not a heading\n```\n## W\n", "## srv: T\n```text\n# not a heading\n```\n### W (srv)\n"},
		{"tilde fences too", "# T\n~~~\n## x\n~~~\n", "## srv: T\n~~~\n## x\n~~~\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			demote(&b, []byte(tc.in), "srv")
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}
