package transport

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

func readEvents(r io.Reader, max int) ([]SSEEvent, error) {
	sr := NewSSEReader(r, max)
	var out []SSEEvent
	for {
		ev, err := sr.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
}

func TestSSEReader(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"result":{}}`
	tests := []struct {
		name    string
		in      string
		max     int
		want    []SSEEvent
		wantErr error
	}{
		{"one message", "event: message\ndata: " + msg + "\n\n", 0, []SSEEvent{{Event: "message", Data: []byte(msg)}}, nil},
		{"id and no event name", "id: 7\ndata: x\n\n", 0, []SSEEvent{{ID: "7", Data: []byte("x")}}, nil},
		{"crlf", "data: a\r\n\r\n", 0, []SSEEvent{{Data: []byte("a")}}, nil},
		{"cr only", "data: a\r\rdata: b\r\r", 0, []SSEEvent{{Data: []byte("a")}, {Data: []byte("b")}}, nil},
		{"multi-line data joined", "data: a\ndata: b\n\n", 0, []SSEEvent{{Data: []byte("a\nb")}}, nil},
		{"no space after colon", "data:x\n\n", 0, []SSEEvent{{Data: []byte("x")}}, nil},
		{"only one space removed", "data:  x\n\n", 0, []SSEEvent{{Data: []byte(" x")}}, nil},
		{"comments and keep-alives", ": ping\n\n:\ndata: x\n\n", 0, []SSEEvent{{Data: []byte("x")}}, nil},
		{"empty data event dispatched", "data\n\n", 0, []SSEEvent{{Data: []byte{}}}, nil},
		{"event without data skipped", "event: endpoint\n\ndata: y\n\n", 0, []SSEEvent{{Data: []byte("y")}}, nil},
		{"bom stripped", "\xef\xbb\xbfdata: z\n\n", 0, []SSEEvent{{Data: []byte("z")}}, nil},
		{"endpoint event", "event: endpoint\ndata: /message?sessionId=abc\n\n", 0, []SSEEvent{{Event: "endpoint", Data: []byte("/message?sessionId=abc")}}, nil},
		{"retry kept", "retry: 1000\ndata: r\n\n", 0, []SSEEvent{{Retry: "1000", Data: []byte("r")}}, nil},
		{"unknown field ignored", "foo: bar\ndata: q\n\n", 0, []SSEEvent{{Data: []byte("q")}}, nil},
		{"cut mid-event", "data: a\n\ndata: {\"jsonrpc\"", 0, []SSEEvent{{Data: []byte("a")}}, ErrSSECut},
		{"cut after data line", "data: a\n", 0, nil, ErrSSECut},
		{"line over the bound", "data: " + strings.Repeat("x", 100) + "\n\n", 50, nil, ErrSSETooLarge},
		{"event over the bound", strings.Repeat("data: xxxxxxxxx\n", 10) + "\n", 50, nil, ErrSSETooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readEvents(strings.NewReader(tc.in), tc.max)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d events %+v, want %d", len(got), got, len(tc.want))
			}
			for i := range got {
				if !reflect.DeepEqual(got[i], tc.want[i]) {
					t.Errorf("event %d = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// chunked returns its input a few bytes at a time, at the given split points.
type chunked struct {
	data  []byte
	sizes []int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := 1
	if len(c.sizes) > 0 {
		n = c.sizes[0]%7 + 1
		c.sizes = c.sizes[1:]
	}
	n = min(n, len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// FuzzSSEReader: however the stream is split into reads, it parses to the
// same events and the same error.
func FuzzSSEReader(f *testing.F) {
	f.Add([]byte("event: message\r\ndata: {\"a\":1}\r\n\r\nid: 2\ndata: b\n\n"), []byte{1, 2, 3})
	f.Add([]byte(": keep-alive\n\ndata: x\rdata: y\r\r"), []byte{0})
	f.Add([]byte("data: cut"), []byte{5, 5})
	f.Fuzz(func(t *testing.T, in, sizes []byte) {
		whole, werr := readEvents(strings.NewReader(string(in)), 1<<16)
		s := make([]int, len(sizes))
		for i, b := range sizes {
			s[i] = int(b)
		}
		split, serr := readEvents(&chunked{data: in, sizes: s}, 1<<16)
		if (werr == nil) != (serr == nil) || (werr != nil && werr.Error() != serr.Error()) {
			t.Fatalf("errors differ: whole %v, split %v", werr, serr)
		}
		if !reflect.DeepEqual(whole, split) {
			t.Fatalf("events differ:\nwhole %+v\nsplit %+v", whole, split)
		}
		// And one byte per read, every boundary at once.
		single, _ := readEvents(&chunked{data: in}, 1<<16)
		if !reflect.DeepEqual(whole, single) {
			t.Fatalf("byte-by-byte differs:\nwhole %+v\nsingle %+v", whole, single)
		}
	})
}
