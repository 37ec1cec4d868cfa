package transport

import (
	"bytes"
	"io"
)

// valueScan finds where the JSON object or array a buffer starts with
// ends, a byte at a time, keeping its place between reads so that a long
// value is scanned once. It only tracks nesting and strings: whether the
// value is valid JSON is for the parser to say.
type valueScan struct {
	pos, depth        int
	started, scalar   bool
	inString, escaped bool
}

// end is the length of the complete value b starts with (after leading
// whitespace), or 0 while it is not complete, or when b starts with
// anything but an object or an array (then it is read to its end).
func (s *valueScan) end(b []byte) int {
	for ; s.pos < len(b) && !s.scalar; s.pos++ {
		c := b[s.pos]
		switch {
		case !s.started && (c == ' ' || c == '\t' || c == '\r' || c == '\n'):
		case !s.started && c != '{' && c != '[':
			s.scalar = true
			return 0
		case s.inString && s.escaped:
			s.escaped = false
		case s.inString && c == '\\':
			s.escaped = true
		case s.inString && c == '"':
			s.inString = false
		case s.inString:
		case c == '"':
			s.inString = true
		case c == '{' || c == '[':
			s.started = true
			s.depth++
		case c == '}' || c == ']':
			s.depth--
			if s.depth == 0 {
				s.pos++
				return s.pos
			}
		}
	}
	return 0
}

// jsonValues reads an application/json body and hands each complete
// JSON value to emit (n counts them from 1) as soon as its last byte has
// come, without waiting for the body to end: a server that writes its
// message and then holds the body open (a subscription's acknowledgment,
// say) is read at once. A value keeps its bytes as sent, leading
// whitespace included; whitespace after the last value is insignificant
// (RFC 8259 §2) and not a message. At most limit bytes are read in all.
// rest is what was read but not emitted (a cut value, not JSON, or the
// bytes past limit, with over set); err is the read error, nil at the
// body's end.
func jsonValues(body io.Reader, limit int, emit func(value []byte, n int)) (rest []byte, over bool, err error) {
	var buf []byte
	var scan valueScan
	chunk := make([]byte, 32<<10)
	total, n := 0, 0
	for {
		k, rerr := body.Read(chunk[:min(len(chunk), limit+1-total)])
		total += k
		buf = append(buf, chunk[:k]...)
		for {
			end := scan.end(buf)
			if end == 0 {
				break
			}
			n++
			emit(buf[:end:end], n)
			buf, scan = append([]byte(nil), buf[end:]...), valueScan{}
		}
		switch {
		case total > limit:
			return buf, true, nil
		case rerr == io.EOF:
			if n > 0 && len(bytes.TrimSpace(buf)) == 0 {
				return nil, false, nil
			}
			return append([]byte{}, buf...), false, nil // an empty body is no message either
		case rerr != nil:
			return buf, false, rerr
		}
	}
}
