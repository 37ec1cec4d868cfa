package survey

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/inputfile"
	"github.com/tidwall/gjson"
)

// MergeError is a set of parts that cannot be merged: an overlap, a gap,
// parts of different inputs or partitions.
type MergeError struct{ Msg string }

func (e *MergeError) Error() string { return e.Msg }

// MergeResult is what merge combined.
type MergeResult struct {
	Parts, Records, Shards int
	Empty                  int // part files with no record: shards with no server
}

// Describe is a one-line account, for stderr.
func (r MergeResult) Describe() string {
	s := fmt.Sprintf("%d records from %d parts", r.Records, r.Parts)
	if r.Shards > 1 {
		s += fmt.Sprintf(" (%d shards)", r.Shards)
	}
	if r.Empty > 0 {
		s += fmt.Sprintf(", %d of them empty", r.Empty)
	}
	return s
}

// Merge writes the records of parts to w, in the order given, each with
// its shard set to null: the merged file reads as one run of the whole
// input. It refuses, before writing anything, an id in two records (an
// overlap), records of different inputs (digest) or partitions (shard
// count), a record in the wrong shard, a mix of sharded and whole runs,
// and a gap: a shard index from 0 to N-1 with no record, beyond as many
// as there are empty part files (a shard may hold no server, and its
// part is then empty). It reads the parts twice and holds only the ids.
func Merge(parts []string, w io.Writer) (MergeResult, error) {
	res := MergeResult{Parts: len(parts)}
	seen := map[string]string{} // id → where
	indexes := map[int]bool{}
	digest, count := "", -1
	for _, p := range parts {
		n := 0
		err := eachLine(p, func(ln int, line []byte) error {
			where := fmt.Sprintf("%s:%d", p, ln)
			l, err := ParseLine(line)
			if err != nil {
				return &MergeError{Msg: where + ": " + err.Error()}
			}
			n++
			s := l.Survey
			id, d := s.ID, s.Digest
			if digest == "" {
				digest = d
			} else if d != digest {
				return &MergeError{Msg: fmt.Sprintf("%s is a record of another input (%s, the first part's is %s)", where, d, digest)}
			}
			c := 1
			if sh := s.Shard; sh != nil {
				c = sh.N
				i := sh.I
				if c < 1 || i < 0 || i >= c {
					return &MergeError{Msg: fmt.Sprintf("%s: shard %d/%d is not a shard", where, i, c)}
				}
				if Of(id, c) != i {
					return &MergeError{Msg: fmt.Sprintf("%s: %q belongs to shard %d/%d, not %d/%d", where, id, Of(id, c), c, i, c)}
				}
				indexes[i] = true
			}
			if count == -1 {
				count = c
			} else if c != count {
				return &MergeError{Msg: fmt.Sprintf("%s: a record of %s, where the first was of %s", where, partition(c), partition(count))}
			}
			if prev, ok := seen[id]; ok {
				return &MergeError{Msg: fmt.Sprintf("overlap: %q is in %s and in %s; merge takes each server once", id, prev, where)}
			}
			seen[id] = where
			return nil
		})
		if err != nil {
			return res, err
		}
		if n == 0 {
			res.Empty++
		}
		res.Records += n
	}
	if count > 1 {
		var missing []string
		for i := range count {
			if !indexes[i] {
				missing = append(missing, fmt.Sprintf("%d/%d", i, count))
			}
		}
		if len(missing) > res.Empty {
			return res, &MergeError{Msg: fmt.Sprintf("gap: no record of shard %s; give every part (an empty part stands for a shard with no server)", strings.Join(missing, ", "))}
		}
		res.Shards = count
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	for _, p := range parts {
		err := eachLine(p, func(_ int, line []byte) error {
			_, err := bw.Write(unshard(line))
			return err
		})
		if err != nil {
			return res, err
		}
	}
	return res, bw.Flush()
}

func partition(n int) string {
	if n <= 1 {
		return "a whole run"
	}
	return fmt.Sprintf("%d shards", n)
}

// shardPath is where a line holds its shard, for gjson.
var shardPath = keyOf[Line]("Survey") + "." + keyOf[Section]("Shard")

// unshard sets a record's shard to null, in place of its value, leaving
// every other byte as it was (a decoded record written again would not
// be the bytes the run wrote).
func unshard(line []byte) []byte {
	line = bytes.TrimRight(line, "\r\n")
	v := gjson.GetBytes(line, shardPath)
	out := line
	if v.Exists() && v.Index > 0 && v.Raw != "null" {
		out = make([]byte, 0, len(line))
		out = append(out, line[:v.Index]...)
		out = append(out, "null"...)
		out = append(out, line[v.Index+len(v.Raw):]...)
	}
	return append(out, '\n')
}

// eachLine calls f on every non-blank line of path; a last line without
// its newline is an error (a part still being written, or cut short).
func eachLine(path string, f func(n int, line []byte) error) error {
	fh, err := inputfile.Open(path, inputfile.MaxSurvey)
	if err != nil {
		return err
	}
	defer fh.Close()
	br := bufio.NewReaderSize(fh, 1<<20)
	n := 0
	for {
		line, err := readRecordLine(br, MaxRecordLine)
		if errors.Is(err, errLongLine) {
			return &MergeError{Msg: fmt.Sprintf("%s:%d is over the %d MiB of any record a survey writes (read no further)", path, n+1, MaxRecordLine>>20)}
		}
		if len(line) > 0 {
			n++
			if line[len(line)-1] != '\n' {
				return &MergeError{Msg: fmt.Sprintf("%s:%d is a partial line (the run writing it was stopped): finish it with survey --resume first", path, n)}
			}
			if len(bytes.TrimSpace(line)) > 0 {
				if ferr := f(n, line); ferr != nil {
					return ferr
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// sortedInts sorts a copy.
func sortedInts(v []int) []int {
	out := append([]int(nil), v...)
	sort.Ints(out)
	return out
}
