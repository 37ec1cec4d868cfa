package dial

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/launch"
)

// TestMain doubles as the servers a session is opened to: with
// DIAL_HELPER set, the test binary behaves as that mode says instead of
// running tests.
func TestMain(m *testing.M) {
	if mode := os.Getenv("DIAL_HELPER"); mode != "" {
		helper(mode)
		os.Exit(0)
	}
	// As mcpprobe's main does: every child of this process comes from
	// launch, and what escapes a server's group reparents here.
	if err := launch.EnableSubreaper(); err != nil {
		fmt.Fprintln(os.Stderr, "no subreaper:", err)
	}
	os.Exit(m.Run())
}

func helper(mode string) {
	drainStdin := func() {
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
		}
	}
	switch mode {
	case "ignore-term": // needs SIGKILL
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		drainStdin()
		time.Sleep(time.Minute)
	case "exit-stderr": // a server that fails at startup
		fmt.Println("listening on stdio")
		fmt.Fprintln(os.Stderr, "fatal: ORDERS_API_KEY is not set")
		os.Exit(3)
	case "silent": // never answers, exits when stdin closes
		drainStdin()
	case "garbage": // answers every line with text that is not JSON-RPC
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			fmt.Println("Server ready! Listening for requests...")
		}
	case "string-id": // answers every request, with its id made a string
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(in.Bytes(), &m) == nil && m.ID != nil {
				fmt.Printf(`{"jsonrpc":"2.0","id":"%s","error":{"code":-32601,"message":"no"}}`+"\n", strings.Trim(string(m.ID), `"`))
			}
		}
	}
}

// helperTarget is the test binary run as mode.
func helperTarget(t testing.TB, mode string) launch.Target {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return launch.Target{Kind: "stdio", Command: exe, Env: []string{"DIAL_HELPER=" + mode}}
}
