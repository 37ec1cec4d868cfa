// Command minimal-client is the benchmark's baseline: the least a client
// can do. It spawns the server, sends the frames of FRAMES_FILE one by one,
// reads one line back for every request, closes stdin and waits for the
// exit. Its wall time is the server's own time to answer.
//
// usage: minimal-client FRAMES_FILE SERVER [ARGS...]
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: minimal-client FRAMES_FILE SERVER [ARGS...]")
		os.Exit(2)
	}
	frames, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail(err)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
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

func fail(err error) {
	fmt.Fprintln(os.Stderr, "minimal-client:", err)
	os.Exit(1)
}
