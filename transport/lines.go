package transport

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// DefaultMaxLine bounds one stdout line. A tools/list of a large server is a
// few hundred KiB; 16 MiB leaves room without letting a server exhaust memory.
const DefaultMaxLine = 16 << 20

// Line is one newline-delimited unit of a byte stream.
type Line struct {
	Bytes []byte // without the '\n'; at most the reader's limit
	Len   int    // the line's full length, larger than len(Bytes) when cut
	Cut   bool   // the line was longer than the limit; the rest was discarded
	EOF   bool   // the stream ended without a final '\n'
	// Early: OnCut was called for this line while it was still coming.
	Early bool
}

// LineReader splits a stream on '\n' and never holds more than max bytes of
// one line, however long the line is.
type LineReader struct {
	r   *bufio.Reader
	max int
	// OnCut, if set, is called once per line the moment it passes max,
	// newline or not: a line of 200 MB that never ends is news at once,
	// not when its newline (or the stream's end) comes.
	OnCut func(head []byte, soFar int)
}

// NewLineReader reads lines of at most max bytes (DefaultMaxLine if max<=0).
func NewLineReader(r io.Reader, max int) *LineReader {
	if max <= 0 {
		max = DefaultMaxLine
	}
	size := 64 << 10
	if max < size {
		size = max
	}
	if size < 16 {
		size = 16 // bufio's minimum
	}
	return &LineReader{r: bufio.NewReaderSize(r, size), max: max}
}

// Next returns the next line. At the end of the stream it returns io.EOF,
// after a last Line with EOF set if the stream did not end in '\n'.
// Bytes is a fresh slice the caller may keep.
func (l *LineReader) Next() (Line, error) {
	var buf []byte
	total := 0
	early := false
	for {
		chunk, err := l.r.ReadSlice('\n')
		n := len(chunk)
		ended := err == nil // chunk ends with '\n'
		if ended {
			n--
		}
		if room := l.max - len(buf); room > 0 {
			take := n
			if take > room {
				take = room
			}
			buf = append(buf, chunk[:take]...)
		}
		total += n
		if !ended && !early && total > l.max && l.OnCut != nil {
			early = true
			l.OnCut(buf, total)
		}
		switch {
		case ended:
			return Line{Bytes: nonNil(buf), Len: total, Cut: total > l.max, Early: early}, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if total == 0 {
				return Line{}, io.EOF
			}
			return Line{Bytes: nonNil(buf), Len: total, Cut: total > l.max, EOF: true, Early: early}, nil
		default:
			if total > 0 {
				return Line{Bytes: nonNil(buf), Len: total, Cut: total > l.max, EOF: true, Early: early}, err
			}
			return Line{}, err
		}
	}
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	// A long line grew by appends, its capacity up to a quarter over its
	// length; a line the caller keeps (a trace frame, a page) keeps the
	// capacity too. Copied to its size, it keeps only itself.
	if c := cap(b); c-len(b) > 4096 && c-len(b) > len(b)/16 {
		return bytes.Clone(b)
	}
	return b
}
