package reports

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/mcpprobe/mcpprobe/probe/snapshot"
	"github.com/mcpprobe/mcpprobe/transport"
)

// SnapshotText is snapshot's output: the lock file itself, to be written
// with --out and read back by diff --ref.
// A control or invisible character in it is written as its \u escape, the
// same JSON value: the file is meant to be committed and read in a
// terminal.
func SnapshotText(w io.Writer, r *snapshot.Result) {
	lock, _ := transport.EscapeInvisible(r.Lock)
	w.Write(lock)
}

// SnapshotSection is snapshot's --json section: the same lock file as an
// object, compacted to sit on the envelope's one line (diff --ref reads
// it back from the envelope too).
func SnapshotSection(r *snapshot.Result) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, r.Lock); err != nil {
		return nil // diff.Snapshot writes valid JSON; null says it did not
	}
	return b.Bytes()
}
