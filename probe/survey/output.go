package survey

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/mcpprobe/mcpprobe/probe/inputfile"
)

// Output is where records go, one line each: each line is written whole,
// with one write under a lock, so that a run killed at any moment leaves
// whole lines only (but for the one write the kernel was doing, which
// --resume truncates away).
type Output struct {
	mu sync.Mutex
	w  io.Writer
	f  *os.File // nil for stdout
}

// NewOutput writes records to w (stdout).
func NewOutput(w io.Writer) *Output { return &Output{w: w} }

// Prior is what an output file already held, read by --resume.
type Prior struct {
	IDs       map[string]bool
	Digest    string // of the first record; "" when the file held none
	Shard     string // "i/n" of the first record, "" for a whole run
	Truncated int    // bytes of a partial last line cut away
	Records   int
}

// matches refuses to resume a file of another run: records of another
// input, or of another shard (a file with no record is any run's).
func (p *Prior) matches(path, digest string, s Shard) error {
	if p.Records == 0 {
		return nil
	}
	if p.Digest != digest {
		return usage("--resume: %s holds records of another input (%s, this one is %s): resume with the same input, or write to another file", path, p.Digest, digest)
	}
	want := ""
	if s.N > 1 {
		want = s.String()
	}
	if p.Shard != want {
		return usage("--resume: %s holds shard %q, this run is shard %q", path, orWhole(p.Shard), orWhole(want))
	}
	return nil
}

func orWhole(s string) string {
	if s == "" {
		return "none (a whole run)"
	}
	return s
}

// CreateOutput opens path for a run: truncated, or with resume, read for
// the ids it holds (a trailing partial line cut away) and appended to.
func CreateOutput(path string, resume bool) (*Output, *Prior, error) {
	if !resume {
		f, err := os.Create(path)
		if err != nil {
			return nil, nil, err
		}
		return &Output{w: f, f: f}, nil, nil
	}
	// The file to resume is read whole, a line at a time: bounded as a
	// survey part is for merge, so a file grown past any run's output
	// (or not a file at all, or a link) is refused before a byte is read.
	f, err := inputfile.OpenUpdate(path, inputfile.MaxSurvey)
	if err != nil {
		return nil, nil, fmt.Errorf("--resume: %w", err)
	}
	p, err := readPrior(f, path)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return nil, nil, err
	}
	return &Output{w: f, f: f}, p, nil
}

// MaxRecordLine bounds one line of a survey's results that --resume and
// merge read: a record is a summary of a few kilobytes (what a server sent
// is bounded by --max-bytes, 8 MiB by default, and only counted in it),
// and a results file may come from anywhere.
const MaxRecordLine = 16 << 20

// errLongLine is a line past MaxRecordLine, read no further.
var errLongLine = errors.New("line too long")

// readRecordLine reads the next line of br, its newline included. err is
// nil only for a line that ends in a newline; a line past max is not read
// on: errLongLine, with what was read of it dropped.
func readRecordLine(br *bufio.Reader, max int64) (line []byte, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if int64(len(line)+len(chunk)) > max {
			return nil, errLongLine
		}
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// readPrior reads the ids of the records in f, and cuts a partial last
// line away: it was the write in progress when the run was killed. A line
// past MaxRecordLine is refused as soon as it passes it, whole or not: no
// survey writes one, and cutting it away could drop the records after it.
func readPrior(f *os.File, path string) (*Prior, error) {
	p := &Prior{IDs: map[string]bool{}}
	br := bufio.NewReaderSize(f, 1<<20)
	var good int64
	n := 0
	for {
		line, err := readRecordLine(br, MaxRecordLine)
		switch {
		case errors.Is(err, errLongLine):
			return nil, fmt.Errorf("--resume: %s line %d is over the %d MiB of any record a survey writes (read no further): resume only a survey's own output", path, n+1, MaxRecordLine>>20)
		case err == nil:
			n++
			l, perr := ParseLine(line)
			if perr != nil {
				return nil, fmt.Errorf("--resume: %s line %d: %v", path, n, perr)
			}
			if p.Records == 0 {
				p.Digest = l.Survey.Digest
				p.Shard = shardString(l.Survey.Shard)
			}
			p.IDs[l.Survey.ID] = true
			p.Records++
			good += int64(len(line))
		case len(line) > 0:
			p.Truncated = len(line)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if p.Truncated > 0 {
		if err := f.Truncate(good); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func shardString(s *Shard) string {
	if s == nil {
		return ""
	}
	return s.String()
}

// Write writes one line whole.
func (o *Output) Write(line []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	_, err := o.w.Write(line)
	return err
}

// Close closes the file, if the output is one.
func (o *Output) Close() error {
	if o.f == nil {
		return nil
	}
	return o.f.Close()
}
