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
// bytes and allocations its init made, deterministic figures for a given
// binary (no clock): the JSON Schema library's init once compiled every
// draft's metaschemas (1.7 MB, 8-10 ms of CPU) for commands that never
// validate, twenty regular expressions were compiled at init in five
// packages, and the hidden-content rules' expressions (670 KB, 3,753
// allocations, a millisecond) came back with a merge. Each package of
// the module (main included) is held on its own and all of them
// together, and every package's init in all.
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
		perPackage       = 40 << 10 // bytes, any one package of the module (probe/check's clause table is 29 KB)
		perPackageAllocs = 256
		moduleBytes      = 96 << 10 // the module's packages together (69 KB, 648 allocations)
		moduleAllocs     = 1000
		total            = 1 << 20 // everything (895 KB; tablewriter's width cache is 650 KB of it)
		schemaPkg        = "github.com/mcpprobe/mcpprobe/internal/jsonschema"
		modulePkgs       = "github.com/mcpprobe/mcpprobe/"
	)
	sum, modSum, modAllocs, seen := 0, 0, 0, false
	for _, line := range strings.Split(errb.String(), "\n") {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(line)
		if len(f) < 11 || f[0] != "init" || f[8] != "bytes," || f[10] != "allocs" {
			continue
		}
		b, err := strconv.Atoi(f[7])
		a, err2 := strconv.Atoi(f[9])
		if err != nil || err2 != nil {
			t.Fatalf("unparsed inittrace line %q", line)
		}
		sum += b
		if f[1] == schemaPkg {
			seen = true
		}
		if !strings.HasPrefix(f[1], modulePkgs) && f[1] != "main" {
			continue
		}
		modSum, modAllocs = modSum+b, modAllocs+a
		if b > perPackage || a > perPackageAllocs {
			t.Errorf("%s allocates %d bytes in %d allocations in its init (at most %d in %d): make what it builds lazy (sync.OnceValue)",
				f[1], b, a, perPackage, perPackageAllocs)
		}
	}
	if !seen {
		t.Fatalf("no inittrace line for %s in:\n%s", schemaPkg, errb.String())
	}
	if modSum > moduleBytes || modAllocs > moduleAllocs {
		t.Errorf("the module's package inits allocate %d bytes in %d allocations, at most %d in %d", modSum, modAllocs, moduleBytes, moduleAllocs)
	}
	if sum > total {
		t.Errorf("package inits allocate %d bytes in all, at most %d", sum, total)
	}
}
