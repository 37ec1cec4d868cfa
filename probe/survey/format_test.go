package survey

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// main's files (testdata/main, written before the record was typed) are
// what older runs left: they still merge, resume and parse.
const mainDir = "testdata/main/"

func TestMainFilesMerge(t *testing.T) {
	var b bytes.Buffer
	res, err := Merge([]string{mainDir + "part-0.jsonl", mainDir + "part-1.jsonl"}, &b)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(mainDir + "merged.jsonl")
	if !bytes.Equal(b.Bytes(), want) || res.Records != 9 || res.Shards != 2 {
		t.Errorf("merge of main's parts: %+v, %d bytes, want main's %d bytes", res, b.Len(), len(want))
	}
	// A whole run's file merges into itself.
	b.Reset()
	if _, err := Merge([]string{mainDir + "whole.jsonl"}, &b); err != nil {
		t.Fatal(err)
	}
	if whole, _ := os.ReadFile(mainDir + "whole.jsonl"); !bytes.Equal(b.Bytes(), whole) {
		t.Errorf("merge of a whole run changed it")
	}
}

func TestMainFilesParse(t *testing.T) {
	for _, f := range []string{"whole.jsonl", "part-0.jsonl", "part-1.jsonl", "merged.jsonl", "with.jsonl", "with2.jsonl", "writer.jsonl"} {
		b, err := os.ReadFile(mainDir + f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
			l, err := ParseLine(line)
			if err != nil {
				t.Errorf("%s:%d: %v", f, i+1, err)
				continue
			}
			s := l.Survey
			if (s.Status == StatusFailed) != (s.Failure != nil) || s.Digest == "" || s.Timings.StartedAt == "" {
				t.Errorf("%s:%d: read as %+v", f, i+1, s)
			}
			if s.Status == StatusOK && (s.Wire == nil || s.Budget == nil || s.Wire.Tools.Kept != len(s.Wire.Tools.DescriptionUTF16)) {
				t.Errorf("%s:%d: an ok record without its wire and budget: %+v", f, i+1, s)
			}
		}
	}
}

// A resumed run of main's files takes their ids, and probes nothing they
// hold (the input is the fleet they were written from).
func TestMainFilesResume(t *testing.T) {
	fleet := mainDir + "fleet.jsonl.txt"
	for _, c := range []struct {
		file  string
		shard Shard
		ids   []string
	}{
		{"whole.jsonl", Whole, []string{"ansi", "bad-utf8", "banner", "crashed", "good", "good-paged", "missing", "no-command", "secret"}},
		{"part-1.jsonl", Shard{1, 2}, nil},
		{"merged.jsonl", Whole, nil},
	} {
		t.Run(c.file, func(t *testing.T) {
			before, _ := os.ReadFile(mainDir + c.file)
			out := filepath.Join(t.TempDir(), c.file)
			if err := os.WriteFile(out, before, 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), Options{Inputs: []string{fleet}, Out: out, Resume: true, Shard: c.shard, Encode: testEncode})
			if err != nil {
				t.Fatal(err)
			}
			after, _ := os.ReadFile(out)
			if res.Done != 0 || res.Skipped == 0 || !bytes.Equal(after, before) {
				t.Errorf("%+v: want every server skipped and the file as it was", res.Tally)
			}
			if c.ids != nil {
				if got := slices.Sorted(slices.Values(fileIDs(t, out))); !slices.Equal(got, c.ids) {
					t.Errorf("ids %v, want %v", got, c.ids)
				}
			}
		})
	}
	// The partial last line of a stopped run is cut away to the byte.
	whole, _ := os.ReadFile(mainDir + "whole.jsonl")
	cut := bytes.LastIndexByte(whole[:len(whole)-1], '\n') + 1
	out := filepath.Join(t.TempDir(), "torn.jsonl")
	_ = os.WriteFile(out, whole[:len(whole)-40], 0o644)
	o, prior, err := CreateOutput(out, true)
	if err != nil {
		t.Fatal(err)
	}
	o.Close()
	after, _ := os.ReadFile(out)
	if prior.Records != 8 || prior.Truncated != len(whole)-40-cut || !bytes.Equal(after, whole[:cut]) || prior.Shard != "" {
		t.Errorf("prior %+v; the file kept %d bytes, want %d", prior, len(after), cut)
	}
}
