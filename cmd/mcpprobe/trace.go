package main

import (
	"fmt"
	"os"

	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/urfave/cli/v3"
)

// recordTrace opens --trace FILE for a command that starts several
// servers (bench's fresh starts and --vs, malformed's restarts): each
// server started with the Recorder in its launch options streams its own
// numbered connection into the file, secrets hidden as wire hides them.
// Call it once every target is resolved, so every secret is known. close
// flushes nothing (lines are written as they happen) but says on stderr
// if a write failed.
func recordTrace(cmd *cli.Command) (rec *transport.Recorder, close func(), err error) {
	path := cmd.String("trace")
	if path == "" {
		return nil, func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, usageErr("--trace: %v", err)
	}
	rec = transport.NewRecorder(f, redactor().Bytes)
	return rec, func() {
		if err := rec.Err(); err != nil {
			fmt.Fprintf(cmd.Root().ErrWriter, "mcpprobe: writing the trace failed: %v\n", err)
		}
		f.Close()
	}, nil
}
