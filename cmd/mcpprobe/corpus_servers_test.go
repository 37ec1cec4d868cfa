//go:build !e2e

package main

// Without the e2e tag there is no built binary and no live server: the
// corpus replays its recorded traces only, and -record says what it
// needs. corpus_live_e2e_test.go holds the real versions.

import (
	"errors"
	"testing"
)

var errNeedsE2E = errors.New("-record runs the built binary against the live corpus servers: go test -tags e2e ./cmd/mcpprobe -run Corpus -record -update")

func recordCorpus(*testing.T, corpusServer, string) error { return errNeedsE2E }

func recordCalls(*testing.T, string, []string) error { return errNeedsE2E }

// The corpus's server commands, named by its tables; only recording
// starts them.
func goodServer(t *testing.T) string { t.Fatal(errNeedsE2E); return "" }

func mcpgoServer(t *testing.T) string { t.Fatal(errNeedsE2E); return "" }

func tsServer(t *testing.T, _ string) []string { t.Fatal(errNeedsE2E); return nil }

func tsServer2(t *testing.T, _ string) []string { t.Fatal(errNeedsE2E); return nil }
