package launch

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain doubles as the servers the launcher is tested against: with
// LAUNCH_HELPER set, the test binary behaves as that mode says instead of
// running tests.
func TestMain(m *testing.M) {
	if mode := os.Getenv("LAUNCH_HELPER"); mode != "" {
		helper(mode)
		os.Exit(0)
	}
	// As mcpprobe's main does: every child of this process comes from
	// launch, and what escapes a server's group reparents here.
	if err := EnableSubreaper(); err != nil {
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
	case "clean": // exits when stdin closes, as a server should
		fmt.Println("ready")
		drainStdin()
	case "ignore-close": // keeps running after stdin closes; SIGTERM ends it
		fmt.Println("ready")
		drainStdin()
		time.Sleep(time.Minute)
	case "ignore-term": // needs SIGKILL
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		drainStdin()
		time.Sleep(time.Minute)
	case "grandchild": // leaves a child of its group behind when it exits
		c := exec.Command(os.Args[0])
		c.Env = append(os.Environ(), "LAUNCH_HELPER=sleep")
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(c.Process.Pid)
		fmt.Println("ready")
		drainStdin()
	case "sleep":
		time.Sleep(time.Minute)
	case "escape": // a grandchild that leaves the group (setsid) and ignores SIGTERM
		c := exec.Command(os.Args[0])
		c.Env = append(os.Environ(), "LAUNCH_HELPER=stubborn")
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(c.Process.Pid)
		fmt.Println("ready")
		drainStdin()
	case "stubborn":
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP)
		time.Sleep(time.Minute)
	case "exit-stderr": // a server that fails at startup
		fmt.Println("listening on stdio")
		fmt.Fprintln(os.Stderr, "fatal: ORDERS_API_KEY is not set")
		os.Exit(3)
	case "silent": // never answers, exits when stdin closes
		drainStdin()
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
func helperTarget(t testing.TB, mode string) Target {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Target{Kind: "stdio", Command: exe, Env: []string{"LAUNCH_HELPER=" + mode}}
}
