package survey

import (
	"bytes"
	"errors"
	"github.com/mcpprobe/mcpprobe/probe/inputfile"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		shard  string
		shards int
		env    string
		want   Shard
		err    string
	}{
		{"", 0, "", Whole, ""},
		{"", 0, "3", Whole, ""}, // the index alone asks for nothing
		{"2/5", 0, "", Shard{2, 5}, ""},
		{"0/1", 0, "", Shard{0, 1}, ""},
		{"/5", 0, "4", Shard{4, 5}, ""},
		{"", 5, "4", Shard{4, 5}, ""},
		{"2/5", 0, "2", Shard{2, 5}, ""},
		{"2/5", 0, "3", Shard{}, "disagree"},
		{"/5", 0, "", Shard{}, "JOB_COMPLETION_INDEX"},
		{"", 5, "", Shard{}, "JOB_COMPLETION_INDEX"},
		{"1/5", 5, "", Shard{}, "both given"},
		{"5/5", 0, "", Shard{}, "from 0 to 4"},
		{"-1/5", 0, "", Shard{}, "from 0 to 4"},
		{"1/0", 0, "", Shard{}, "at least 1"},
		{"a/b", 0, "", Shard{}, "want i/n"},
		{"/5", 0, "x", Shard{}, "whole number"},
	} {
		got, err := ParseShard(c.shard, c.shards, c.env)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("ParseShard(%q, %d, %q) = %v, %v; want an error with %q", c.shard, c.shards, c.env, got, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("ParseShard(%q, %d, %q) = %v, %v; want %v", c.shard, c.shards, c.env, got, err, c.want)
		}
	}
}

// The partition is part of the contract between machines (and between
// versions of mcpprobe): a change would put servers in other shards.
func TestShardOfIsStable(t *testing.T) {
	for _, c := range []struct {
		id   string
		n    int
		want int
	}{
		{"a", 7, 5}, {"srv-000", 2, 1}, {"io.example/weather@1.2.0#packages[0]", 50, 43},
	} {
		if got := Of(c.id, c.n); got != c.want {
			t.Errorf("Of(%q, %d) = %d, want %d", c.id, c.n, got, c.want)
		}
	}
	counts := make([]int, 4)
	for i := range 4000 {
		counts[Of(strings.Repeat("x", i%7)+string(rune('a'+i%26))+strings.Repeat("y", i/26), 4)]++
	}
	for i, n := range counts {
		if n < 700 || n > 1300 {
			t.Errorf("shard %d of 4 holds %d of 4000 ids: not an even partition", i, n)
		}
	}
}

func TestRegistryEntries(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		ids       []string
		targets   []string
		causes    []string
	}{
		{"npm with a value", `{"name":"a/b","version":"1.0.0","packages":[{"registryType":"npm","identifier":"@a/b","version":"1.0.0",
			"runtimeArguments":[{"type":"named","name":"--node-options","value":"--max-old-space-size=256"}],
			"packageArguments":[{"type":"positional","value":"serve"},{"type":"named","name":"--port","default":"8080"},{"type":"named","name":"--verbose"}],
			"environmentVariables":[{"name":"KEY","value":"v1","isSecret":true},{"name":"OPTIONAL"}]}]}`,
			[]string{"a/b@1.0.0#packages[0]"}, []string{"KEY=*** npx -y --node-options --max-old-space-size=256 @a/b@1.0.0 serve --port 8080"}, []string{""}},
		{"pypi, runtimeHint", `{"name":"p","version":"2","packages":[{"registryType":"pypi","identifier":"p-mcp","version":"2.0","runtimeHint":"pipx","runtimeArguments":[{"type":"positional","value":"run"}]}]}`,
			[]string{"p@2#packages[0]"}, []string{"pipx run p-mcp==2.0"}, []string{""}},
		{"oci passes env by name", `{"name":"o","version":"1","packages":[{"registryType":"oci","identifier":"ghcr.io/o/s","version":"1.1","environmentVariables":[{"name":"T","default":"d"}]}]}`,
			[]string{"o@1#packages[0]"}, []string{"T=*** docker run -i --rm -e T ghcr.io/o/s:1.1"}, []string{""}},
		{"oci tagged already", `{"name":"o","packages":[{"registryType":"oci","identifier":"docker.io/o/s:2.0","version":"1.1"}]}`,
			[]string{"o#packages[0]"}, []string{"docker run -i --rm docker.io/o/s:2.0"}, []string{""}},
		{"required env missing", `{"name":"n","version":"1","packages":[{"registryType":"npm","identifier":"n","environmentVariables":[{"name":"API_KEY","isRequired":true}]}]}`,
			[]string{"n@1#packages[0]"}, []string{"npx -y n"}, []string{CauseMissingValue}},
		{"required argument missing", `{"name":"n","packages":[{"registryType":"npm","identifier":"n","packageArguments":[{"type":"positional","valueHint":"directory","isRequired":true}]}]}`,
			[]string{"n#packages[0]"}, []string{"npx -y n"}, []string{CauseMissingValue}},
		{"http package, mcpb", `{"name":"h","packages":[{"registryType":"npm","identifier":"h","transport":{"type":"streamable-http","url":"http://localhost:3000/mcp"}},{"registryType":"mcpb","identifier":"https://x/y.mcpb"}]}`,
			[]string{"h#packages[0]", "h#packages[1]"}, []string{"", ""}, []string{CauseUnsupported, CauseUnsupported}},
		{"remotes", `{"server":{"name":"r","version":"3","remotes":[{"type":"streamable-http","url":"https://r.example/mcp","headers":[{"name":"Authorization","value":"Bearer tok-123456","isSecret":true}]},
			{"type":"sse","url":"https://{region}.r.example/sse","variables":{"region":{"default":"eu"}}},{"type":"sse","url":"https://{tenant}.r.example/sse"}]}}`,
			[]string{"r@3#remotes[0]", "r@3#remotes[1]", "r@3#remotes[2]"}, []string{"https://r.example/mcp", "https://eu.r.example/sse", "https://{tenant}.r.example/sse"}, []string{"", "", CauseMissingValue}},
		{"no name", `{"packages":[]}`, []string{"src"}, []string{""}, []string{CauseEntry}},
		{"nothing to run", `{"name":"e","version":"1"}`, []string{"e@1"}, []string{""}, []string{CauseEntry}},
	} {
		es := registryEntries("src", gjson.Parse(c.doc))
		if len(es) != len(c.ids) {
			t.Errorf("%s: %d entries, want %d: %+v", c.name, len(es), len(c.ids), es)
			continue
		}
		for i, e := range es {
			if e.ID != c.ids[i] || e.Cause != c.causes[i] {
				t.Errorf("%s: entry %d is %q (%s: %s), want %q (%s)", c.name, i, e.ID, e.Cause, e.Err, c.ids[i], c.causes[i])
			}
			if c.targets[i] != "" && e.Target.Display() != c.targets[i] {
				t.Errorf("%s: entry %d runs %q, want %q", c.name, i, e.Target.Display(), c.targets[i])
			}
		}
	}
	// A credential in a URL is a secret, as on the command line.
	var url []string
	_ = Read([]string{writeTemp(t, `{"id":"u","url":"https://h/mcp?api_key=k-55555"}`+"\n")}, func(e Entry) error {
		url = e.Target.Secrets
		return nil
	})
	if !strings.Contains(strings.Join(url, ","), "k-55555") {
		t.Errorf("a URL's api_key is not a secret: %q", url)
	}
	// A secret input is a secret of the target.
	es := registryEntries("src", gjson.Parse(`{"name":"r","remotes":[{"type":"sse","url":"https://r/sse","headers":[{"name":"X-Key","value":"sekrit-987","isSecret":true}]}]}`))
	if !strings.Contains(strings.Join(es[0].Target.Secrets, ","), "sekrit-987") {
		t.Errorf("a secret header is not a secret: %q", es[0].Target.Secrets)
	}
}

func TestReadDetectsEachFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	files := []string{
		write("fleet.jsonl", "# a comment\n{\"id\":\"a\",\"command\":\"srv\",\"env\":{\"K\":\"v\"}}\n\n{\"id\":\"b\",\"url\":\"https://b/mcp\",\"headers\":{\"Authorization\":\"Bearer x\"}}\n{\"command\":\"noid\"}\n[1]\n"),
		write("vscode.json", "{\n  // VS Code\n  \"servers\": {\"v\": {\"type\": \"stdio\", \"command\": \"vs\"},},\n}\n"),
		write("claude.json", `{"mcpServers": {"c": {"command": "cc"}, "d": {"url": "https://d/mcp"}}}`),
		write("server.json", "{\n  \"name\": \"s\",\n  \"version\": \"1\",\n  \"packages\": [{\"registryType\": \"npm\", \"identifier\": \"s\"}]\n}\n"),
		write("list.json", `{"servers": [{"server": {"name": "l1", "remotes": [{"type": "sse", "url": "https://l1/sse"}]}}, {"server": {"name": "l2", "packages": [{"registryType": "pypi", "identifier": "l2"}]}}], "metadata": {"count": 2}}`),
		write("registry.jsonl", `{"name":"j1","packages":[{"registryType":"npm","identifier":"j1"}]}`+"\n"+`{"name":"j2","remotes":[{"type":"sse","url":"https://j2/sse"}]}`+"\n"),
	}
	var got []string
	err := Read(files, func(e Entry) error {
		s := e.ID + " " + e.Target.Kind
		if e.Cause != "" {
			s = e.ID + " " + e.Cause
		}
		got = append(got, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	d := filepath.ToSlash(dir)
	want := []string{
		"a stdio", "b http", d + "/fleet.jsonl:5 invalid_entry", d + "/fleet.jsonl:6 invalid_entry",
		d + "/vscode.json#v stdio",
		d + "/claude.json#c stdio", d + "/claude.json#d http",
		"s@1#packages[0] stdio",
		"l1#remotes[0] sse", "l2#packages[0] stdio",
		"j1#packages[0] stdio", "j2#remotes[0] sse",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestResumeCutsAPartialLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out.jsonl")
	rec := `{"schema":"mcpprobe/result/v1","command":"survey","survey":{"id":"ID","input_digest":"sha256:d","shard":null}}` + "\n"
	body := strings.ReplaceAll(rec, "ID", "a") + strings.ReplaceAll(rec, "ID", "b") + `{"schema":"mcpprobe/res`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out, prior, err := CreateOutput(p, true)
	if err != nil {
		t.Fatal(err)
	}
	if prior.Records != 2 || !prior.IDs["a"] || !prior.IDs["b"] || prior.Truncated != len(`{"schema":"mcpprobe/res`) || prior.Digest != "sha256:d" {
		t.Errorf("prior = %+v", prior)
	}
	if err := out.Write([]byte(strings.ReplaceAll(rec, "ID", "c"))); err != nil {
		t.Fatal(err)
	}
	out.Close()
	b, _ := os.ReadFile(p)
	if bytes.Count(b, []byte("\n")) != 3 || !bytes.HasSuffix(b, []byte("\"c\",\"input_digest\":\"sha256:d\",\"shard\":null}}\n")) {
		t.Errorf("after resume and a write:\n%s", b)
	}
	// A line that is no survey record is refused, not skipped.
	_ = os.WriteFile(p, []byte("{\"command\":\"wire\"}\n"), 0o644)
	if _, _, err := CreateOutput(p, true); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a wire output resumed: %v", err)
	}
}

// A file past a survey part's bound is refused before it is read (a
// sparse file: nothing of it is on disk).
func TestResumeRefusesAHugeFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out.jsonl")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, inputfile.MaxSurvey+1); err != nil {
		t.Skip("no sparse files here:", err)
	}
	if _, _, err := CreateOutput(p, true); err == nil || !strings.Contains(err.Error(), "over the 1.0 GiB cap for this kind of file") {
		t.Errorf("resume of a %d-byte file: %v", int64(inputfile.MaxSurvey+1), err)
	}
}

func TestMergeRefuses(t *testing.T) {
	dir := t.TempDir()
	rec := func(id string, shard string, digest string) string {
		return `{"command":"survey","survey":{"id":"` + id + `","input_digest":"` + digest + `","shard":` + shard + `}}` + "\n"
	}
	// ids of each shard of 2
	var in0, in1 []string
	for _, id := range []string{"a", "b", "c", "d", "e", "f"} {
		if Of(id, 2) == 0 {
			in0 = append(in0, id)
		} else {
			in1 = append(in1, id)
		}
	}
	s0, s1 := `{"index":0,"count":2}`, `{"index":1,"count":2}`
	part := func(name string, lines ...string) string {
		p := filepath.Join(dir, name)
		_ = os.WriteFile(p, []byte(strings.Join(lines, "")), 0o644)
		return p
	}
	p0 := part("p0", rec(in0[0], s0, "sha256:x"))
	p1 := part("p1", rec(in1[0], s1, "sha256:x"))
	empty := part("empty")
	other := part("other", rec(in1[0], s1, "sha256:y"))
	wrong := part("wrong", rec(in0[0], s1, "sha256:x"))
	whole := part("whole", rec("zz", "null", "sha256:x"))
	torn := part("torn", rec(in1[0], s1, "sha256:x")+`{"comm`)
	typed := part("typed", rec(in1[0], `{"index":"1","count":2}`, "sha256:x"))
	notSurvey := part("wire", `{"command":"wire","wire":{}}`+"\n")
	for _, c := range []struct {
		parts []string
		err   string
	}{
		{[]string{p0, p1}, ""},
		{[]string{p0, empty}, ""}, // an empty part is a shard with no server
		{[]string{p0, p0}, "overlap"},
		{[]string{p0}, "gap: no record of shard 1/2"},
		{[]string{p0, other}, "another input"},
		{[]string{wrong, p1}, "belongs to shard"},
		{[]string{whole, p0}, "where the first was of a whole run"},
		{[]string{p0, torn}, "partial line"},
		{[]string{p0, typed}, "typed:1: not a survey record: survey.shard.index: want int, got a JSON string"},
		{[]string{p0, notSurvey}, `wire:1: not a survey record (no "command": "survey")`},
	} {
		var b bytes.Buffer
		_, err := Merge(c.parts, &b)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("Merge(%v): %v", c.parts, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("Merge(%v) = %v, want %q", c.parts, err, c.err)
		case c.err == "" && strings.Contains(b.String(), `"index"`):
			t.Errorf("merged records keep their shard: %s", b.String())
		}
	}
}

func TestDistribution(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want Percentiles
	}{
		{nil, Percentiles{}},
		{[]int{5}, Percentiles{1, 5, 5, 5, 5, 5}},
		{[]int{10, 1, 9, 2, 8, 3, 7, 4, 6, 5}, Percentiles{10, 1, 5, 9, 10, 10}},
	} {
		if got := Distribution(c.in); got != c.want {
			t.Errorf("Distribution(%v) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func writeTemp(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every cause a record can carry is explained in a census.
func TestCauseMeaning(t *testing.T) {
	for _, c := range Causes {
		if CauseMeaning[c] == "" {
			t.Errorf("cause %q has no meaning", c)
		}
	}
	if len(CauseMeaning) != len(Causes) {
		t.Errorf("%d meanings for %d causes", len(CauseMeaning), len(Causes))
	}
}

// summary reads what the record's types hold, and names the file and line
// of what they do not.
func TestSummarizeRefuses(t *testing.T) {
	ok := `{"command":"survey","protocol_version":"2025-11-25","survey":{"id":"a","status":"ok","finding_counts":{"x":2},"wire":{"transport":"stdio","tools":{"count":3,"kept":1,"description_utf16":[7]},"sdk_artefacts":{"task_support":2}},"budget":{"tokens":40,"hosts":[{"host":"h","tools":3,"cut":1,"tokens":9}]}}}` + "\n"
	c, err := Summarize([]string{writeTemp(t, ok)})
	if err != nil {
		t.Fatal(err)
	}
	if c.Records != 1 || c.OK != 1 || c.Tools != 3 || c.Protocols["2025-11-25"] != 1 || c.Finding["x"] != 2 || c.SDK["task_support"] != 1 ||
		c.SDKTools["task_support"] != 2 || len(c.Tokens) != 1 || len(c.Hosts) != 1 || c.Hosts[0].ServersCut != 1 || c.Hosts[0].Tokens[0] != 9 ||
		len(c.DescriptionUTF16) != 1 {
		t.Errorf("census %+v", c)
	}
	for _, line := range []string{
		`{"command":"survey","survey":{"id":"a","finding_counts":{"x":"2"}}}`,
		`{"command":"survey","survey":{"id":"a","budget":{"hosts":{"host":"h"}}}}`,
		`{"command":"survey","survey":{"id":"a","wire":{"tools":{"description_utf16":[1.5]}}}}`,
		`{"command":"survey","protocol_version":7,"survey":{"id":"a"}}`,
	} {
		p := writeTemp(t, ok+line+"\n")
		if _, err := Summarize([]string{p}); err == nil || !strings.Contains(err.Error(), p+":2: not a survey record: ") {
			t.Errorf("%s: %v", line, err)
		}
	}
}

// A partial last line as long as a survey part may be (a sparse file of
// 1 GiB, nothing of it on disk) is neither held nor read through: resume
// refuses it once it passes MaxRecordLine (cutting it could drop records
// after it), as merge does, having allocated a small part of it.
func TestResumeBoundsALongLine(t *testing.T) {
	dir := t.TempDir()
	rec := `{"schema":"mcpprobe/result/v1","command":"survey","survey":{"id":"a","input_digest":"sha256:d","shard":null}}` + "\n"
	p := filepath.Join(dir, "out.jsonl")
	if err := os.WriteFile(p, []byte(rec+`{"schema":`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, inputfile.MaxSurvey); err != nil {
		t.Skip("no sparse files here:", err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, _, err := CreateOutput(p, true)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "line 2 is over the 16 MiB of any record a survey writes (read no further)") {
		t.Errorf("resume of a 1 GiB partial line: %v", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 100<<20 {
		t.Errorf("resume allocated %d MiB for a partial line of 1 GiB", alloc>>20)
	}
	if st, _ := os.Stat(p); st.Size() != inputfile.MaxSurvey {
		t.Errorf("the refused file was cut to %d bytes", st.Size())
	}
	var me *MergeError
	if err := eachLine(p, func(int, []byte) error { return nil }); !errors.As(err, &me) || !strings.Contains(err.Error(), "out.jsonl:2 is over the 16 MiB") {
		t.Errorf("merge of a 1 GiB partial line: %v", err)
	}
}

// The file --resume reads and then writes is never a link: a committed
// results.jsonl -> .git/config would have had its last line cut away and
// records appended to it.
func TestResumeRefusesALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "config")
	const body = "[core]\n\tbare = false\n[http]\n\textraheader = CANARY"
	os.WriteFile(target, []byte(body), 0o644)
	p := filepath.Join(dir, "out.jsonl")
	os.Symlink(target, p)
	_, _, err := CreateOutput(p, true)
	if err == nil || !strings.Contains(err.Error(), "is a symlink") || strings.Contains(err.Error(), "CANARY") {
		t.Errorf("resume through a link: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != body {
		t.Errorf("the link's target changed: %q", b)
	}
}
