//go:build e2e

package main

// The corpus's live half: recording the traces from the live servers with
// the built binary (-record) and checking that each installed SDK is the
// one recorded. The replays, which need no server, are in corpus_test.go
// and corpus_calls_test.go; corpus_servers_test.go stands in for this file
// without the e2e tag.

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// corpusRecordTimeout is malformed's --timeout when recording: generous,
// so that a loaded machine records no false no_answer.
const corpusRecordTimeout = 2 * time.Second

// goodServer is the corpus's go-sdk server, built by TestMain.
func goodServer(*testing.T) string { return bin.good }

func tsServer2(t *testing.T, mode string) []string {
	t.Helper()
	entry, _ := filepath.Abs("../../fixtures/tsserver2/server.mjs")
	if _, err := os.Stat("../../fixtures/tsserver2/node_modules/@modelcontextprotocol/server"); err != nil {
		if os.Getenv("MCPPROBE_REQUIRE_PEERS") != "" {
			t.Fatalf("fixtures/tsserver2 is not installed: run scripts/install-peers.sh")
		}
		t.Skip("fixtures/tsserver2 is not installed (scripts/install-peers.sh)")
	}
	return []string{"node", entry, mode}
}

// mcpgoServer builds fixtures/mcpgoserver once, when a test first needs
// it.
func mcpgoServer(t *testing.T) string { return fixtureBin(t, "mcpgoserver") }

// recordCorpus runs the built binary against the live server, as a user
// would, and stores its traces: wire.jsonl as written, malformed.jsonl
// gzipped (it holds the 1 MB case, twice when the server echoes it).
func recordCorpus(t *testing.T, cs corpusServer, dir string) error {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	argv := cs.argv(t)
	wireTrace := filepath.Join(dir, "wire.jsonl")
	if r := mcpprobe(t, append([]string{"wire", "--quiet", "--trace", wireTrace, "--"}, argv...)...); r.code != 0 {
		return &recordError{"wire", r}
	}
	mTrace := filepath.Join(t.TempDir(), "malformed.jsonl")
	args := []string{"malformed", "--quiet", "--timeout", secs(corpusRecordTimeout), "--trace", mTrace}
	for _, tool := range corpusTools {
		args = append(args, "--call", tool)
	}
	if r := mcpprobe(t, append(append(args, "--"), argv...)...); r.code != 0 {
		return &recordError{"malformed", r}
	}
	raw, err := os.ReadFile(mTrace)
	if err != nil {
		return err
	}
	var gz bytes.Buffer
	z, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	z.Write(raw)
	if err := z.Close(); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "malformed.jsonl.gz"), gz.Bytes(), 0o644)
}

type recordError struct {
	command string
	r       result
}

func (e *recordError) Error() string {
	return fmt.Sprintf("recording %s: exit %d: %s", e.command, e.r.code, e.r.stderr)
}

// Each live corpus server is the SDK release recorded: one quick wire per
// server, its serverInfo (which carries the SDK's version), its
// negotiated version and what it lists.
func TestCorpusLive(t *testing.T) {
	t.Parallel()
	for _, cs := range corpus {
		t.Run(cs.name, func(t *testing.T) {
			t.Parallel()
			v := wireJSON(t, append([]string{"--"}, cs.argv(t)...)...)
			if got := v.Get("wire.server_info.name").String(); got != cs.server {
				t.Errorf("serverInfo.name %q, want %q", got, cs.server)
			}
			if got := v.Get("wire.server_info.version").String(); got != cs.version {
				t.Errorf("the installed SDK is %s, the corpus was recorded with %s: re-record (go test -tags e2e ./cmd/mcpprobe -run Corpus -record -update) and review the verdicts", got, cs.version)
			}
			if got := v.Get("protocol_version").String(); got != cs.protocol {
				t.Errorf("negotiated %s, want %s", got, cs.protocol)
			}
			tools := names(v, "wire.tools")
			slices.Sort(tools)
			want := slices.Clone(corpusTools)
			slices.Sort(want)
			if !slices.Equal(tools, want) {
				t.Errorf("tools %v, want %v", tools, want)
			}
			if got := names(v, "wire.prompts"); !slices.Equal(got, []string{"greet"}) {
				t.Errorf("prompts %v, want [greet]", got)
			}
			if got := v.Get("wire.resources.#.uri").String(); got != `["corpus://about"]` {
				t.Errorf("resources %s, want [corpus://about]", got)
			}
		})
	}
}

// recordCalls makes each case of the live server with the built binary,
// as a user would, keeping its trace.
func recordCalls(t *testing.T, dir string, argv []string) error {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, c := range callCases {
		args := []string{c.command, "--quiet", "--trace", filepath.Join(dir, c.name+".jsonl")}
		if c.progress {
			args = append(args, "--progress")
		}
		if c.args != "" {
			args = append(args, "--args", c.args)
		}
		args = append(append(args, c.what, "--"), argv...)
		// 1 is a finding at the gate: a verdict, still recorded.
		if r := mcpprobe(t, args...); r.code != 0 && r.code != 1 {
			return &recordError{c.cli(), r}
		}
	}
	return nil
}

// Each live server, with its calls flag, has the corpus's tools and the
// call corpus's, and is the SDK release recorded.
func TestCorpusCallsLive(t *testing.T) {
	t.Parallel()
	for _, cc := range callCorpus {
		t.Run(cc.corpus, func(t *testing.T) {
			t.Parallel()
			cs := corpusEntry(cc.corpus)
			v := wireJSON(t, append([]string{"--"}, cc.argv(t)...)...)
			if got := v.Get("wire.server_info.version").String(); got != cs.version {
				t.Errorf("the installed SDK is %s, the call corpus was recorded with %s: re-record (go test -tags e2e ./cmd/mcpprobe -run CorpusCalls -record -update)", got, cs.version)
			}
			have := map[string]bool{}
			for _, n := range names(v, "wire.tools") {
				have[n] = true
			}
			for _, c := range callCases {
				if c.command == "call" && !have[c.what] {
					t.Errorf("no tool %s: tools %v", c.what, names(v, "wire.tools"))
				}
			}
			for _, n := range corpusTools {
				if !have[n] {
					t.Errorf("no corpus tool %s beside the call tools", n)
				}
			}
		})
	}
}
