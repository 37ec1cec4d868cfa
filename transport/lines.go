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
	// The pieces of a line longer than the buffer are kept apart and
	// joined once: appended to one slice, a 7 MB line was copied over
	// and over as the slice grew (by a quarter at a time past 256 KiB).
	// A line that fits the buffer, the common case, is one part held
	// apart from the slice of parts, which then costs nothing.
	var first []byte
	var parts [][]byte
	kept, total := 0, 0
	early := false
	line := func() []byte {
		switch {
		case first == nil:
			return []byte{}
		case parts == nil:
			return first
		}
		b := make([]byte, 0, kept)
		b = append(b, first...)
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	for {
		chunk, err := l.r.ReadSlice('\n')
		n := len(chunk)
		ended := err == nil // chunk ends with '\n'
		if ended {
			n--
		}
		if take := min(n, l.max-kept); take > 0 {
			if first == nil {
				first = bytes.Clone(chunk[:take])
			} else {
				parts = append(parts, bytes.Clone(chunk[:take]))
			}
			kept += take
		}
		total += n
		if !ended && !early && total > l.max && l.OnCut != nil {
			early = true
			l.OnCut(line(), total)
		}
		switch {
		case ended:
			return Line{Bytes: line(), Len: total, Cut: total > l.max, Early: early}, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if total == 0 {
				return Line{}, io.EOF
			}
			return Line{Bytes: line(), Len: total, Cut: total > l.max, EOF: true, Early: early}, nil
		default:
			if total > 0 {
				return Line{Bytes: line(), Len: total, Cut: total > l.max, EOF: true, Early: early}, err
			}
			return Line{}, err
		}
	}
}
