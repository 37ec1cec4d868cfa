package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v3"
)

// testApp is the command tree of a run that writes nowhere, to walk.
func testApp() *cli.Command {
	return newRunState(strings.NewReader(""), io.Discard, io.Discard, os.LookupEnv, os.Environ).newApp()
}

// inProcess is one run of mcpprobe in this process, with fake streams and
// the environment env (KEY=VALUE) on top of nothing: what it printed and
// its exit code.
type inProcess struct {
	code           int
	stdout, stderr string
}

// runInProcess runs args (without "mcpprobe") as main would, in process:
// no binary, no exec, its own run value.
func runInProcess(env []string, args ...string) inProcess {
	vars := map[string]string{}
	for _, e := range env {
		k, v, _ := strings.Cut(e, "=")
		vars[k] = v
	}
	lookup := func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	var out, errb bytes.Buffer
	rs := newRunState(strings.NewReader(""), &out, &errb, lookup, func() []string { return env })
	code := rs.runApp(context.Background(), append([]string{"mcpprobe"}, args...))
	return inProcess{code: code, stdout: out.String(), stderr: errb.String()}
}
