package transport

import (
	"bytes"

	"github.com/tidwall/gjson"
)

// IsJSONRPC reports whether a stdout line is a JSON-RPC message (or a batch
// of them). A JSON object without a "jsonrpc" member, such as a structured
// log line, is not: it is noise that would break a strict client.
func IsJSONRPC(b []byte) bool {
	t := bytes.TrimSpace(b)
	if len(t) == 0 || !validJSON(t) {
		return false
	}
	switch t[0] {
	case '{':
		return gjson.GetBytes(t, "jsonrpc").Exists()
	case '[':
		n, ok := 0, true
		gjson.ParseBytes(t).ForEach(func(_, v gjson.Result) bool {
			n++
			ok = v.IsObject() && v.Get("jsonrpc").Exists()
			return ok
		})
		return ok && n > 0
	}
	return false
}

// maxGlueCandidates bounds the search for a message glued behind stray
// text, so a long noise line costs little.
const maxGlueCandidates = 8

// GluedMessage finds a JSON-RPC message glued to the end of stray text
// written without a newline ("Loading...{"jsonrpc":...}"). It returns the
// offset of the message within the line, or -1.
func GluedMessage(line []byte) int {
	off := 0
	for i := 0; i < maxGlueCandidates; i++ {
		j := bytes.IndexByte(line[off:], '{')
		if j < 0 {
			return -1
		}
		off += j
		if off > 0 && IsJSONRPC(line[off:]) {
			return off
		}
		off++
	}
	return -1
}
