//go:build e2e

package main

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestStartupInitCost: a command pays at start only for what every command
// needs. The Go runtime's inittrace lists, per package initialised, the
// bytes its init allocated, a deterministic figure for a given binary (no
// clock): the JSON Schema library's init once compiled every draft's
// metaschemas (1.7 MB, 8-10 ms of CPU) for commands that never validate,
// and twenty regular expressions were compiled at init in five packages.
func TestStartupInitCost(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(bin.mcpprobe, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("mcpprobe --version: %v; stderr: %s", err, errb.String())
	}
	if !strings.HasPrefix(out.String(), "mcpprobe version ") {
		t.Fatalf("stdout %q", out.String())
	}
	const (
		perPackage = 64 << 10 // any one package of the module, the JSON Schema copy included
		total      = 5 << 19  // everything (2.7 MB before the metaschemas went lazy; tablewriter's width table is 650 KB of it)
		schemaPkg  = "github.com/mcpprobe/mcpprobe/internal/jsonschema"
		modulePkgs = "github.com/mcpprobe/mcpprobe/"
	)
	sum, seen := 0, false
	for _, line := range strings.Split(errb.String(), "\n") {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(line)
		if len(f) < 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		b, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("unparsed inittrace line %q", line)
		}
		sum += b
		if f[1] == schemaPkg {
			seen = true
		}
		if strings.HasPrefix(f[1], modulePkgs) && b > perPackage {
			t.Errorf("%s allocates %d bytes in its init (at most %d): make what it builds lazy", f[1], b, perPackage)
		}
	}
	if !seen {
		t.Fatalf("no inittrace line for %s in:\n%s", schemaPkg, errb.String())
	}
	if sum > total {
		t.Errorf("package inits allocate %d bytes in all, at most %d", sum, total)
	}
}
