package reports

import (
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/result"
)

func TestPolicyRule(t *testing.T) {
	tests := []struct {
		p    result.Policy
		want string
	}{
		{result.Policy{Timeout: time.Minute}, "timeout:1m"},
		{result.Policy{Timeout: 100000 * time.Second, ResetOnProgress: true}, "timeout:27h46m40s,reset-on-progress"},
		{result.Policy{Timeout: 1500 * time.Millisecond, MaxTotal: 2 * time.Minute}, "timeout:1.5s,max-total:2m"},
		{result.Policy{Idle: 90 * time.Second}, "idle:1m30s"},
		{result.Policy{Timeout: time.Minute, ResetOnProgress: true, MaxTotal: 5 * time.Minute, MaxTotalOnProgress: true}, "timeout:1m,reset-on-progress,max-total:5m,max-total-on-progress"},
		{result.Policy{}, "no timeout"},
	}
	for _, tc := range tests {
		if got := policyRule(tc.p); got != tc.want {
			t.Errorf("policyRule(%+v) = %q, want %q", tc.p, got, tc.want)
		}
	}
}

func TestBlocksOf(t *testing.T) {
	tests := []struct {
		kind result.Kind
		raw  string
		want []blockRow
	}{
		{result.KindTool, `{"content":[{"type":"text","text":"héllo"},{"type":"image","data":"iVBORw==","mimeType":"image/png"},{"type":"image","data":"!!","mimeType":"image/png"}]}`,
			[]blockRow{{where: "content[0]", typ: "text", size: "5 chars", text: "héllo"}, {where: "content[1]", typ: "image", mime: "image/png", size: "4 bytes", detail: "base64, 8 chars (not shown)"}, {where: "content[2]", typ: "image", mime: "image/png", size: "2 base64 chars", detail: "base64 invalid: illegal base64 data at input byte 0"}}},
		{result.KindResource, `{"contents":[{"uri":"a://b","mimeType":"text/plain","text":"x"},{"uri":"a://c","blob":"AAE="}]}`,
			[]blockRow{{where: "contents[0]", typ: "text", mime: "text/plain", size: "1 chars", detail: "a://b", text: "x"}, {where: "contents[1]", typ: "blob", size: "2 bytes", detail: "base64, 4 chars (not shown) · a://c"}}},
		{result.KindPrompt, `{"messages":[{"role":"user","content":{"type":"resource","resource":{"uri":"r://x","mimeType":"text/markdown","text":"# t"}}}]}`,
			[]blockRow{{where: "messages[0] user", typ: "resource", mime: "text/markdown", size: "3 chars", detail: "r://x", text: "# t"}}},
	}
	for _, tc := range tests {
		got := blocksOf(tc.kind, []byte(tc.raw))
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %d blocks, want %d: %+v", tc.raw, len(got), len(tc.want), got)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s block %d:\n got %+v\nwant %+v", tc.kind, i, got[i], tc.want[i])
			}
		}
	}
}
