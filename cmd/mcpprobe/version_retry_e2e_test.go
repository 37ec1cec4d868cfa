//go:build e2e

package main

// -32022 after the handshake (2026-07-28 basic/versioning: the client
// SHOULD retry with a mutually supported version): a server whose first
// tools/list, or tools/call, is refused so is asked once more, the
// finding says so; one that refuses every request gets one retry, and
// its refusal stands as the list's error: no loop.

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestVersionRetryAfterHandshake(t *testing.T) {
	t.Parallel()
	codeOf := func(v gjson.Result, sev string) string {
		for _, f := range v.Get("findings").Array() {
			if f.Get("code").String() == "version-retried" && f.Get("severity").String() == sev {
				return f.Get("message").String()
			}
		}
		return ""
	}
	t.Run("tools/list", func(t *testing.T) {
		t.Parallel()
		v := callJSON(t, 0, "wire", "--", bin.raw, "-modern", "-version-once", "tools/list")
		if n := v.Get("wire.tools.#").Int(); n == 0 {
			t.Errorf("no tools after the retry: %s", v.Get("wire").Raw)
		}
		if m := codeOf(v, "info"); !strings.Contains(m, "retried once with 2026-07-28") || !strings.Contains(m, "basic/versioning") {
			t.Errorf("no version-retried info naming the retry and its clause: %s", v.Get("findings").Raw)
		}
	})
	t.Run("tools/call", func(t *testing.T) {
		t.Parallel()
		v := callJSON(t, 0, "call", "alpha", "--", bin.raw, "-modern", "-version-once", "tools/call")
		if !v.Get("call.completed").Bool() || v.Get("call.error").Exists() && v.Get("call.error").Raw != "null" {
			t.Errorf("the call did not complete after the retry: %s", v.Get("call").Raw)
		}
		if m := codeOf(v, "info"); !strings.Contains(m, "tools/call got -32022") {
			t.Errorf("no version-retried info for tools/call: %s", v.Get("findings").Raw)
		}
	})
	t.Run("refused every time", func(t *testing.T) {
		t.Parallel()
		trace := filepath.Join(t.TempDir(), "t.jsonl")
		r := mcpprobe(t, "wire", "--json", "--trace", trace, "--", bin.raw, "-modern", "-version-once", "all")
		lists := 0
		for _, f := range readTrace(t, trace) {
			if f.Dir == "send" && gjson.Get(f.Raw, "method").String() == "tools/list" {
				lists++
			}
		}
		if lists != 2 {
			t.Errorf("%d tools/list sent: the request and one retry, want 2", lists)
		}
		v := gjson.Parse(r.stdout)
		if r.code != 0 || !strings.Contains(codeOf(v, "info"), "retried once") || !strings.Contains(v.Get("wire.lists.0.error").String(), "-32022") {
			t.Errorf("exit %d; want the retry said and the refusal kept as the list's error:\n%.2000s", r.code, r.stdout)
		}
	})
}
