package faults

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/transport"
)

// rig runs the engine as a front end does, with sinks that log every
// write in order: "S <bytes>" towards the server, "C <bytes>" towards the
// client, "E <bytes>" on stderr, and "KILL".
type rig struct {
	e   *Engine
	mu  sync.Mutex
	log []string
}

func newRig(t *testing.T, where Front, v Values, seed uint64) *rig {
	t.Helper()
	p, err := ParsePlan(v.Get, seed)
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{}
	r.e, err = NewEngine(p, Frontend{Where: where, Kill: func() { r.add("KILL") },
		ToServer: func(pc Piece) error { r.add("S " + string(pc.Raw)); return nil },
		ToClient: func(pc Piece) error { r.add("C " + string(pc.Raw)); return nil },
		Stderr:   writerFunc(func(b []byte) { r.add("E " + string(b)) })})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

type writerFunc func([]byte)

func (f writerFunc) Write(b []byte) (int, error) { f(append([]byte(nil), b...)); return len(b), nil }

func (r *rig) add(s string) {
	r.mu.Lock()
	r.log = append(r.log, s)
	r.mu.Unlock()
}

// play feeds a script: "> FRAME" from the client, "< FRAME" from the
// server; each frame gets its newline, as the proxy reads it. It then
// lets held frames out and returns the log.
func (r *rig) play(script ...string) []string {
	for _, s := range script {
		frame := []byte(s[2:] + "\n")
		if s[0] == '>' {
			_ = r.e.FromClient(frame)
		} else {
			_ = r.e.FromServer(transport.Message{Raw: frame})
		}
	}
	r.e.Settle(time.Second)
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.log...)
}

func (r *rig) notes() []string {
	var out []string
	for _, ev := range r.e.Events() {
		out = append(out, fmt.Sprintf("%d: %s", ev.Call, ev.What))
	}
	return out
}

// Frames for scripts: a tools/call of a tool and its reply.
func call(id int, tool string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s"}}`, id, tool)
}

func reply(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"ok"}]}}`, id)
}

// sent is what a log entry for a frame of the script looks like.
func sent(dir, frame string) string { return dir + " " + frame + "\n" }

func diffLog(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("bytes out:\n got %q\nwant %q", got, want)
	}
}
