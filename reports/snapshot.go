package reports

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/mcpprobe/mcpprobe/probe/snapshot"
)

// SnapshotText is snapshot's output: the lock file itself, to be written
// with --out and read back by diff --ref.
func SnapshotText(w io.Writer, r *snapshot.Result) { w.Write(r.Lock) }

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
