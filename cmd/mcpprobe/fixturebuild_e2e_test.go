//go:build e2e

package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// builtFixture is one fixture server built on demand, once per run.
type builtFixture struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

var builtFixtures sync.Map // fixture directory name → *builtFixture

// fixtureBin builds fixtures/NAME into bin.dir the first time a test needs
// it and returns its path: fixtures only some tests use are not built by
// TestMain, and each is built once, by one builder, so that two tests
// never write the same binary at the same time.
func fixtureBin(t *testing.T, name string) string {
	t.Helper()
	v, _ := builtFixtures.LoadOrStore(name, &builtFixture{})
	b := v.(*builtFixture)
	b.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), bound(5*time.Minute))
		defer cancel()
		p := filepath.Join(bin.dir, name)
		b.out, b.err = exec.CommandContext(ctx, "go", "build", "-o", p, "../../fixtures/"+name).CombinedOutput()
		b.path = p
	})
	if b.err != nil {
		t.Fatalf("building fixtures/%s: %v\n%s", name, b.err, b.out)
	}
	return b.path
}
