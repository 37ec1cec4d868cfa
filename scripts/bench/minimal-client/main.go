// Command minimal-client is the benchmark's baseline: the least a client
// can do. It spawns the server, sends the frames of FRAMES_FILE one by one,
// reads one line back for every request, closes stdin and waits for the
// exit. Its wall time is the server's own time to answer.
//
// With -calls N it is the per-call floor instead: after the handshake it
// sends N tools/call frames (after WARMUP more), each written as one line
// and answered by one line read, and prints {"p50_ns":…,"n":…} as JSON.
//
// usage: minimal-client FRAMES_FILE SERVER [ARGS...]
//
//	minimal-client -calls N [-warmup W] [-tool NAME] [-args JSON] -- SERVER [ARGS...]
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"time"
)

func main() {
	calls := flag.Int("calls", 0, "closed-loop tools/call round trips to time (0: replay FRAMES_FILE)")
	warmup := flag.Int("warmup", 100, "untimed calls first")
	tool := flag.String("tool", "echo", "tool to call")
	args := flag.String("args", `{"text":"a","n":3}`, "arguments, as JSON")
	flag.Parse()
	if *calls > 0 {
		loop(*calls, *warmup, *tool, *args, flag.Args())
		return
	}
	a := flag.Args()
	if len(a) < 2 {
		fmt.Fprintln(os.Stderr, "usage: minimal-client FRAMES_FILE SERVER [ARGS...]")
		os.Exit(2)
	}
	frames, err := os.ReadFile(a[0])
	if err != nil {
		fail(err)
	}
	cmd := exec.Command(a[1], a[2:]...)
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	out := bufio.NewReaderSize(outPipe, 1<<20)
	for _, f := range bytes.Split(bytes.TrimSpace(frames), []byte("\n")) {
		if _, err := in.Write(append(f, '\n')); err != nil {
			fail(err)
		}
		if bytes.Contains(f, []byte(`"method"`)) && bytes.Contains(f, []byte(`"id"`)) {
			if _, err := out.ReadBytes('\n'); err != nil {
				fail(err)
			}
		}
	}
	in.Close()
	_ = cmd.Wait()
}

// loop is the floor per call: one write, one read, nothing parsed.
func loop(n, warmup int, tool, args string, server []string) {
	if len(server) < 1 {
		fmt.Fprintln(os.Stderr, "minimal-client: -calls needs -- SERVER [ARGS...]")
		os.Exit(2)
	}
	cmd := exec.Command(server[0], server[1:]...)
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	out := bufio.NewReaderSize(outPipe, 1<<20)
	rt := func(frame string) {
		if _, err := in.Write([]byte(frame)); err != nil {
			fail(err)
		}
		if _, err := out.ReadBytes('\n'); err != nil {
			fail(err)
		}
	}
	rt(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"minimal","version":"0"}}}` + "\n")
	if _, err := in.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
		fail(err)
	}
	lat := make([]time.Duration, 0, n)
	for i := 1; i <= warmup+n; i++ {
		f := `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}` + "\n"
		t := time.Now()
		rt(f)
		if i > warmup {
			lat = append(lat, time.Since(t))
		}
	}
	in.Close()
	_ = cmd.Wait()
	slices.Sort(lat)
	fmt.Printf(`{"p50_ns":%d,"n":%d}`+"\n", lat[len(lat)/2].Nanoseconds(), len(lat))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "minimal-client:", err)
	os.Exit(1)
}
