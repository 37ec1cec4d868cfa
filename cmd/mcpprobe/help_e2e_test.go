//go:build e2e

package main

// Help that fits (issue 26): the binary lays its help out for COLUMNS.
// What every help holds and that it fits is tested in process
// (cli_test.go).

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// The help is laid out for COLUMNS: the binary reads it from its
// environment (TestHelpFitsTheTerminal, in process, lays out every help).
func TestHelpReadsColumns(t *testing.T) {
	t.Parallel()
	for _, width := range []int{80, 100} {
		r := mcpprobeEnv(t, []string{"COLUMNS=" + strconv.Itoa(width)}, "wire", "--help")
		if r.code != 0 || !strings.HasPrefix(r.stdout, "NAME:\n") {
			t.Fatalf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
		}
		widest := 0
		for _, l := range strings.Split(r.stdout, "\n") {
			widest = max(widest, utf8.RuneCountInString(l))
		}
		if widest > width || widest < width-10 {
			t.Errorf("COLUMNS=%d: the widest line is %d", width, widest)
		}
	}
}
