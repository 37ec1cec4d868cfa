package transport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// SSEEvent is one server-sent event, decoded as the EventSource spec says.
type SSEEvent struct {
	Event string // "" means "message"
	ID    string
	// Data is the event's data: the "data:" lines' values joined with
	// "\n". For MCP this is one JSON-RPC message as the server wrote it.
	Data  []byte
	Retry string
}

// ErrSSETooLarge is returned for a line or an event over the reader's bound.
var ErrSSETooLarge = errors.New("server-sent event too large")

// ErrSSECut is returned when the stream ends inside an event: whatever was
// read of it is discarded, as a browser would.
var ErrSSECut = errors.New("the event stream ended in the middle of an event")

// SSEReader parses a text/event-stream. Lines may end in CRLF, LF or CR;
// no line and no event may exceed max bytes.
type SSEReader struct {
	r       *bufio.Reader
	max     int
	started bool
	line    []byte
}

// NewSSEReader reads events of at most max bytes (DefaultMaxLine if <= 0).
func NewSSEReader(r io.Reader, max int) *SSEReader {
	if max <= 0 {
		max = DefaultMaxLine
	}
	return &SSEReader{r: bufio.NewReaderSize(r, 32<<10), max: max}
}

// readLine returns one line without its terminator; io.EOF at a clean end.
func (s *SSEReader) readLine() ([]byte, error) {
	s.line = s.line[:0]
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			if len(s.line) > 0 && errors.Is(err, io.EOF) {
				return s.line, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		switch c {
		case '\n':
			return s.line, nil
		case '\r':
			if next, err := s.r.Peek(1); err == nil && next[0] == '\n' {
				_, _ = s.r.ReadByte()
			}
			return s.line, nil
		}
		if len(s.line) >= s.max {
			return nil, fmt.Errorf("%w: a line over %d bytes", ErrSSETooLarge, s.max)
		}
		s.line = append(s.line, c)
	}
}

// Next returns the next event that carries data. Events without data are
// skipped, as the spec says; their id still counts as the last event id.
func (s *SSEReader) Next() (SSEEvent, error) {
	var ev SSEEvent
	var data []byte
	hasData, inEvent := false, false
	for {
		line, err := s.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) && !inEvent {
				return SSEEvent{}, io.EOF
			}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return SSEEvent{}, ErrSSECut
			}
			return SSEEvent{}, err
		}
		if !s.started {
			s.started = true
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		if len(line) == 0 {
			if hasData {
				ev.Data = data[:len(data)-1] // the last "\n" is not data
				return ev, nil
			}
			ev, data, inEvent = SSEEvent{ID: ev.ID}, nil, false
			continue
		}
		inEvent = true
		if line[0] == ':' {
			continue // a comment, often a keep-alive
		}
		field, value, found := bytes.Cut(line, []byte(":"))
		if found && len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		switch string(field) {
		case "event":
			ev.Event = string(value)
		case "data":
			if len(data)+len(value)+1 > s.max {
				return SSEEvent{}, fmt.Errorf("%w: an event over %d bytes", ErrSSETooLarge, s.max)
			}
			data = append(append(data, value...), '\n')
			hasData = true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				ev.ID = string(value)
			}
		case "retry":
			ev.Retry = string(value)
		}
	}
}
