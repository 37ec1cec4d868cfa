package survey

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// testEncode writes a record as the typed line, without the renderer's
// envelope members survey does not read.
func testEncode(r *Record) []byte {
	b, err := json.Marshal(Line{Command: "survey", Survey: r.Section()})
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// entriesFleet is a fleet of entries that name no command: each is a
// failed record made without starting anything.
func entriesFleet(t *testing.T, ids ...string) string {
	t.Helper()
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, "{\"id\":%q}\n", id)
	}
	return writeTemp(t, b.String())
}

func fileIDs(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		l, err := ParseLine(line)
		if err != nil {
			t.Fatalf("%s: %v: %q", path, err, line)
		}
		ids = append(ids, l.Survey.ID)
	}
	return ids
}

// Run's resume: what a results file holds before the run decides what is
// probed, what is kept, and what is refused.
func TestRunResume(t *testing.T) {
	ids := []string{"a", "b", "c", "d", "e"}
	fleet := entriesFleet(t, ids...)
	other := entriesFleet(t, "zz")
	// A whole run's file, written once: the cases start from parts of it.
	full := filepath.Join(t.TempDir(), "full.jsonl")
	if _, err := Run(context.Background(), Options{Inputs: []string{fleet}, Out: full, Encode: testEncode, Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	fullBytes, _ := os.ReadFile(full)
	lines := bytes.SplitAfter(fullBytes, []byte("\n"))[:5]
	first := func(n int) string { return string(bytes.Join(lines[:n], nil)) }
	otherLine := func() string {
		p := filepath.Join(t.TempDir(), "o.jsonl")
		if _, err := Run(context.Background(), Options{Inputs: []string{other}, Out: p, Encode: testEncode}); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		return string(b)
	}()
	shardLine := strings.Replace(first(1), `"shard":null`, `"shard":{"index":0,"count":2}`, 1)

	for _, c := range []struct {
		name    string
		before  string // the file before the run; "-" for none
		resume  bool
		skipped int
		notice  string // in the notice, "" for none
		err     string // in the error, "" for none
		write   bool   // the error is a WriteError (exit 4), else a UsageError
	}{
		{name: "fresh, no file", before: "-"},
		{name: "fresh over a file replaces it", before: "junk that is no record\n"},
		{name: "resume of no file", before: "-", resume: true},
		{name: "resume of an empty file", before: "", resume: true},
		{name: "resume after 2 done", before: first(2), resume: true, skipped: 2},
		{name: "resume after all done", before: first(5), resume: true, skipped: 5},
		{name: "resume cuts a partial last line", before: first(3) + string(lines[3][:17]), resume: true, skipped: 3, notice: "partial line (17 bytes"},
		{name: "resume of a file with only a partial line", before: `{"command":"sur`, resume: true, notice: "partial line (15 bytes"},
		// As main has it: merge and summary pass over a blank line, and
		// --resume, which appends to the file, refuses one.
		{name: "a blank line", before: first(1) + "\n" + first(2)[len(first(1)):], resume: true, err: "line 2: not JSON", write: true},
		// A results file may come from anywhere: what is not a record of
		// this run is refused, and the file is left as it was.
		{name: "a line that is not JSON", before: first(1) + "{\"command\":\"survey\",\"survey\":{\"id\":\n" + first(2)[len(first(1)):], resume: true, err: "line 2: not JSON", write: true},
		{name: "a line of another command", before: `{"command":"wire","survey":{"id":"a"}}` + "\n", resume: true, err: `no "command": "survey"`, write: true},
		{name: "a record without an id", before: `{"command":"survey","survey":{"id":""}}` + "\n", resume: true, err: "without an id", write: true},
		{name: "an id of the wrong type", before: `{"command":"survey","survey":{"id":["a"]}}` + "\n", resume: true, err: "survey.id: want string, got a JSON array", write: true},
		{name: "a count of the wrong type", before: `{"command":"survey","survey":{"id":"a","wire":{"tools":{"count":"9"}}}}` + "\n", resume: true, err: "survey.wire.tools.count: want int, got a JSON string", write: true},
		{name: "a number past int", before: `{"command":"survey","survey":{"id":"a","shard":{"index":1e400,"count":2}}}` + "\n", resume: true, err: "line 1", write: true},
		{name: "records of another input", before: otherLine, resume: true, err: "holds records of another input"},
		{name: "records of a shard", before: shardLine, resume: true, err: `holds shard "0/2", this run is shard "none (a whole run)"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.jsonl")
			if c.before != "-" {
				if err := os.WriteFile(out, []byte(c.before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var notices []string
			res, err := Run(context.Background(), Options{Inputs: []string{fleet}, Out: out, Resume: c.resume, Encode: testEncode,
				Notice: func(s string) { notices = append(notices, s) }})
			if c.err != "" {
				var ue *UsageError
				var we *WriteError
				if err == nil || !strings.Contains(err.Error(), c.err) || c.write != errors.As(err, &we) || !c.write != errors.As(err, &ue) {
					t.Fatalf("err = %v (%T), want a %s with %q", err, err, map[bool]string{true: "WriteError", false: "UsageError"}[c.write], c.err)
				}
				if b, _ := os.ReadFile(out); string(b) != c.before {
					t.Errorf("a refused file was changed:\n%s", b)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Skipped != c.skipped || res.Done != len(ids)-c.skipped || res.Failed != res.Done {
				t.Errorf("skipped %d, done %d, failed %d; want %d skipped and the rest done (and failed)", res.Skipped, res.Done, res.Failed, c.skipped)
			}
			got := fileIDs(t, out)
			if sorted := slices.Sorted(slices.Values(got)); !slices.Equal(sorted, ids) {
				t.Errorf("ids in the file %v, want each of %v once", got, ids)
			}
			b, _ := os.ReadFile(out)
			if c.skipped > 0 && !bytes.HasPrefix(b, []byte(first(c.skipped))) {
				t.Errorf("the records already there were not kept as they were:\n%s", b)
			}
			switch {
			case c.notice == "" && len(notices) > 0:
				t.Errorf("notices %q, want none", notices)
			case c.notice != "" && (len(notices) != 1 || !strings.Contains(notices[0], c.notice)):
				t.Errorf("notices %q, want one with %q", notices, c.notice)
			}
		})
	}
}

// Run refuses what cannot run before it writes anything.
func TestRunChecks(t *testing.T) {
	fleet := entriesFleet(t, "a")
	dir := t.TempDir()
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{}, "at least one input"},
		{Options{Inputs: []string{dir}}, "want a file"},
		{Options{Inputs: []string{filepath.Join(dir, "none")}}, "want a file"},
		{Options{Inputs: []string{fleet}, With: []string{"bench", "everything"}}, `--with "everything"`},
		{Options{Inputs: []string{fleet}, Resume: true}, "give -o"},
	} {
		c.o.Encode = testEncode
		_, err := Run(context.Background(), c.o)
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want a UsageError with %q", c.o, err, c.want)
		}
	}
	var b bytes.Buffer
	res, err := Run(context.Background(), Options{Inputs: []string{fleet}, Stdout: &b, Encode: testEncode})
	if err != nil || res.Done != 1 || fileIDsOf(t, b.Bytes())[0] != "a" {
		t.Errorf("to stdout: %v, %+v: %s", err, res, b.Bytes())
	}
}

func fileIDsOf(t *testing.T, b []byte) []string {
	t.Helper()
	return fileIDs(t, writeTemp(t, string(b)))
}

// An output that cannot take a record is a WriteError, with the counts.
func TestRunWriteFails(t *testing.T) {
	fleet := entriesFleet(t, "a", "b")
	res, err := Run(context.Background(), Options{Inputs: []string{fleet}, Stdout: failingWriter{}, Encode: testEncode, Jobs: 1})
	var we *WriteError
	if !errors.As(err, &we) || we.What != "the output" || res == nil {
		t.Errorf("%v (%T), %+v: want a WriteError of the output", err, err, res)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestSplitWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		err  bool
	}{
		{"docker run --rm -i img", []string{"docker", "run", "--rm", "-i", "img"}, false},
		{"  a\t b\nc  ", []string{"a", "b", "c"}, false},
		{`a "b c" 'd e'`, []string{"a", "b c", "d e"}, false},
		{`a "" ''`, []string{"a", "", ""}, false},
		{`a\ b c\"d`, []string{"a b", `c"d`}, false},
		{`'a\b' "a\"b"`, []string{`a\b`, `a"b`}, false},
		{`x"y z"w`, []string{"xy zw"}, false},
		{`$HOME ~ *`, []string{"$HOME", "~", "*"}, false},
		{"", nil, false},
		{`'open`, nil, true},
		{`"open`, nil, true},
		{`trailing\`, nil, true},
	} {
		got, err := splitWords(c.in)
		if (err != nil) != c.err || !slices.Equal(got, c.want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q (error %v)", c.in, got, err, c.want, c.err)
		}
	}
	if _, err := ParseSandbox("  "); err == nil || !strings.Contains(err.Error(), "--sandbox") {
		t.Errorf("an empty --sandbox: %v", err)
	}
}
