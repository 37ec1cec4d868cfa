//go:build e2e

package main

// The Skills extension (SEP-2640) end to end, on the TypeScript SDK 2.x's
// own SkillsExtension (fixtures/tsserver2 --skills) and its injected bugs
// (--skills-bug): wire lists the skills as sent, check grades them.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestSkillsWire(t *testing.T) {
	t.Parallel()
	argv := append(tsServer2(t, "serve"), "--skills")
	r := mcpprobe(t, append([]string{"wire", "--json", "--quiet", "--"}, argv...)...)
	v := envelope(t, "wire", r.stdout)
	sk := v.Get("wire.skills")
	if r.code != 0 || !sk.Exists() {
		t.Fatalf("exit %d, no wire.skills:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var names []string
	for _, s := range sk.Get("skills").Array() {
		names = append(names, s.Get("name").String())
	}
	if got := strings.Join(names, ","); got != "git-workflow,pdf-processing" {
		t.Errorf("skills %q", got)
	}
	pdf := sk.Get(`skills.#(name=="pdf-processing")`)
	if got := pdf.Get("frontmatter").Raw; got != `{"name":"pdf-processing","description":"Extract, fill, and assemble PDF documents","license":"Apache-2.0","metadata":{"version":"2.1.0"}}` {
		t.Errorf("frontmatter not as sent: %s", got)
	}
	files := pdf.Get("resources").Array()
	if len(files) != 5 || pdf.Get("files").Int() != 5 || files[1].Get("uri").String() != "skill://pdf-processing/references/FORMS.md" ||
		!strings.HasPrefix(files[1].Get("digest").String(), "sha256:") || files[1].Get("size").Int() != 35 {
		t.Errorf("manifest: %s", pdf.Get("resources").Raw)
	}
	if !sk.Get("directory_read").Bool() || pdf.Get("get.error").String() != "" {
		t.Errorf("directory_read or get: %s", sk.Raw)
	}
	text := mcpprobe(t, append([]string{"wire", "--"}, argv...)...)
	if !strings.Contains(text.stdout, "Skills: 2 items in 1 page") || !strings.Contains(text.stdout, "skill://pdf-processing/references/FORMS.md") {
		t.Errorf("text output:\n%s", text.stdout)
	}
}

// skillsFlagged lists a check's skills verdicts that are not pass or
// not-applicable, as "era id outcome".
func skillsFlagged(t *testing.T, argv []string) ([]string, string) {
	t.Helper()
	v, _ := checkJSON(t, append([]string{"--skip-malformed", "--"}, argv...)...)
	var flagged []string
	passes := 0
	for _, e := range v.Get("check.eras").Array() {
		for _, x := range e.Get("verdicts").Array() {
			id, o := x.Get("id").String(), x.Get("outcome").String()
			if !strings.HasPrefix(id, "skills.") {
				continue
			}
			if o == "pass" {
				passes++
			} else if o != "not-applicable" {
				flagged = append(flagged, e.Get("era").String()+" "+id+" "+o)
			}
		}
	}
	if passes == 0 {
		t.Errorf("no skills check passed:\n%s", verdictLines(v))
	}
	return flagged, verdictLines(v)
}

func TestSkillsCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--skills"}, ""},
		{[]string{"--skills-bug", "digest"}, "legacy skills.digest fail, modern skills.digest fail"},
		{[]string{"--skills-bug", "size"}, "legacy skills.size fail, modern skills.size fail"},
		{[]string{"--skills-bug", "frontmatter"}, "legacy skills.frontmatter fail, modern skills.frontmatter fail"},
	} {
		t.Run(strings.Join(tc.flags, " "), func(t *testing.T) {
			t.Parallel()
			flagged, lines := skillsFlagged(t, append(tsServer2(t, "serve"), tc.flags...))
			if got := strings.Join(flagged, ", "); got != tc.want {
				t.Errorf("flagged %q, want %q\n%s", got, tc.want, lines)
			}
		})
	}
}

// The lock records the skills, and one changed fact of a skill (a file's
// listed size) is drift in skills alone: diff names its path, and the
// committed report changes by one line.
func TestSkillsDrift(t *testing.T) {
	t.Parallel()
	lock := t.TempDir() + "/mcpprobe.lock.json"
	before := append(tsServer2(t, "serve"), "--skills-bug", "none")
	after := append(tsServer2(t, "serve"), "--skills-bug", "size")
	if r := mcpprobe(t, append([]string{"snapshot", "-o", lock, "--"}, before...)...); r.code != 0 {
		t.Fatalf("snapshot: exit %d: %s", r.code, r.stderr)
	}
	same := diffJSON(t, 0, append([]string{"--ref", lock, "--fail-on", "drift", "--"}, before...)...)
	if !same.Get("identical_bytes").Bool() || !strings.Contains(same.Get("compared").Raw, `"skills"`) {
		t.Errorf("a server against its own snapshot: %s", same.Raw)
	}
	d := diffJSON(t, 1, append([]string{"--ref", lock, "--fail-on", "drift", "--"}, after...)...)
	var paths []string
	for _, c := range d.Get("changes").Array() {
		paths = append(paths, c.Get("part").String()+" "+c.Get("path").String())
	}
	if got := strings.Join(paths, ", "); got != `skills skills["skill://pdf-processing/SKILL.md"].resources[1].size` {
		t.Errorf("changes %q\n%s", got, d.Raw)
	}
	a := mcpprobe(t, append([]string{"report", "--"}, before...)...)
	b := mcpprobe(t, append([]string{"report", "--"}, after...)...)
	la, lb := strings.Split(a.stdout, "\n"), strings.Split(b.stdout, "\n")
	if len(la) != len(lb) {
		t.Fatalf("reports of %d and %d lines", len(la), len(lb))
	}
	var differ []string
	for i := range la {
		// the first line names the target, whose flag differs
		if la[i] != lb[i] && !strings.HasPrefix(la[i], "Probed ") {
			differ = append(differ, la[i]+" → "+lb[i])
		}
	}
	if len(differ) != 1 || !strings.Contains(differ[0], "references/FORMS.md") {
		t.Errorf("report lines that differ: %q", differ)
	}
}

// Each skills check is caught by a break of its own (rawserver -skills
// KIND), in each era it judges, and only by it; rawserver -skills ok
// passes every one of them.
func TestSkillsBreaks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ bug, want string }{
		{"ok", ""},
		{"capability", "legacy skills.capability fail, modern skills.capability fail"},
		{"list", "legacy skills.list fail, modern skills.list fail"},
		{"get", "legacy skills.get fail, modern skills.get fail"},
		{"frontmatter", "legacy skills.frontmatter fail, modern skills.frontmatter fail"},
		{"uri", "legacy skills.uri fail, modern skills.uri fail"},
		{"digest", "legacy skills.digest fail, modern skills.digest fail"},
		{"size", "legacy skills.size fail, modern skills.size fail"},
		{"directory", "legacy skills.directory fail, modern skills.directory fail"},
		{"cache", "modern skills.cache-hints fail"},
	} {
		t.Run(tc.bug, func(t *testing.T) {
			t.Parallel()
			flagged, lines := skillsFlagged(t, []string{bin.raw, "-modern", "-skills", tc.bug})
			if got := strings.Join(flagged, ", "); got != tc.want {
				t.Errorf("flagged %q, want %q\n%s", got, tc.want, lines)
			}
			if tc.bug != "ok" {
				return
			}
			// every skills verdict passes: 8 legacy (cache-hints is modern only), 9 modern
			n := 0
			for _, l := range strings.Split(lines, "\n") {
				if strings.Contains(l, " skills.") && strings.Contains(l, " pass (") {
					n++
				}
			}
			if n != 17 {
				t.Errorf("%d skills verdicts pass, want 17\n%s", n, lines)
			}
		})
	}
}

// budget says what each host that consumes skills delivers of them, and
// nothing of skills for a server without the extension.
func TestSkillsBudget(t *testing.T) {
	t.Parallel()
	r := mcpprobe(t, append([]string{"budget", "--json", "--quiet", "--"}, append(tsServer2(t, "serve"), "--skills")...)...)
	v := envelope(t, "budget", r.stdout)
	sk := v.Get("budget.skills")
	if sk.Get("listed").Int() != 2 || sk.Get("installable").Int() != 2 ||
		sk.Get(`hosts.#(host=="fast-agent").rule`).String() != "install" || sk.Get(`hosts.#(host=="fast-agent").delivered_utf16`).Int() != 127 ||
		sk.Get(`hosts.#(host=="chatgpt").rule`).String() != "unknown" {
		t.Errorf("exit %d, budget.skills: %s\n%s", r.code, sk.Raw, r.stderr)
	}
	plain := mcpprobe(t, "budget", "--json", "--quiet", bin.good)
	if v := envelope(t, "budget", plain.stdout); v.Get("budget.skills").Exists() {
		t.Errorf("skills for a server without the extension: %s", v.Get("budget.skills").Raw)
	}
}

// read --skill loads a skill's file as a host does: skills/list first,
// then the read verified against the listing; a file that differs is
// refused with what differed and the clause, and exits 1 (rawserver
// -skills KIND breaks one file of git-workflow).
func TestSkillsRead(t *testing.T) {
	t.Parallel()
	const md, guide = "skill://git-workflow/SKILL.md", "skill://git-workflow/references/GUIDE.md"
	for _, tc := range []struct {
		bug, uri string
		code     int
		differed string // the mismatches' what, in order; "" for a verified file
	}{
		{"ok", md, 0, ""},
		{"ok", guide, 0, ""},
		{"frontmatter", md, 1, "frontmatter"},
		{"digest", guide, 1, "digest"},
		{"size", guide, 1, "size"},
		// the broken file is another: only the one asked for is read
		{"digest", md, 0, ""},
		{"frontmatter", guide, 0, ""},
	} {
		t.Run(tc.bug+" "+tc.uri, func(t *testing.T) {
			t.Parallel()
			r := mcpprobe(t, "read", "--skill", "--json", tc.uri, "--", bin.raw, "-skills", tc.bug)
			v := envelope(t, "read", r.stdout)
			sk := v.Get("read.skill")
			var what []string
			for _, m := range sk.Get("mismatches").Array() {
				what = append(what, m.Get("what").String())
				if !strings.HasPrefix(m.Get("clause").String(), "SEP-2640 ") {
					t.Errorf("a mismatch without its clause: %s", m.Raw)
				}
			}
			refusals := v.Get(`findings.#(code=="skill-refused")#`).Array()
			if r.code != tc.code || strings.Join(what, ",") != tc.differed || sk.Get("refused").Bool() != (tc.code == 1) ||
				len(refusals) != tc.code || sk.Get("skill").String() != md || sk.Get("file").String() != tc.uri ||
				sk.Get("frontmatter_compared").Bool() != (tc.uri == md) {
				t.Fatalf("exit %d, skill %s, findings %s\n%s", r.code, sk.Raw, v.Get("findings").Raw, r.stderr)
			}
			if tc.code == 1 && !strings.Contains(r.stderr, "--skill: "+tc.uri+" refused ("+tc.differed+")") {
				t.Errorf("stderr: %s", r.stderr)
			}
			text := mcpprobe(t, "read", "--skill", tc.uri, "--", bin.raw, "-skills", tc.bug)
			want := "verified against skills/list"
			if tc.code == 1 {
				want = "REFUSED, not loaded: " + tc.differed + ": "
			}
			if text.code != tc.code || !strings.Contains(text.stdout, want) {
				t.Errorf("text: exit %d, want %q in\n%s", text.code, want, text.stdout)
			}
			// a refused file's delivery rows say whose they are
			if refusedNote := "delivers none of it"; strings.Contains(text.stdout, refusedNote) != (tc.code == 1) {
				t.Errorf("text: %q shown %v for exit %d:\n%s", refusedNote, !(tc.code == 1), tc.code, text.stdout)
			}
		})
	}
}

// read --skill is refused, before any read, where no listing can vouch
// for the file: a server without the extension, a URI no skill lists,
// and a command that reads nothing.
func TestSkillsReadRefusedUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"read", "--skill", bin.good, "skill://git-workflow/SKILL.md"}, "does not declare the io.modelcontextprotocol/skills extension"},
		{[]string{"read", "--skill", "skill://nope/SKILL.md", "--", bin.raw, "-skills", "ok"}, `no skill that skills/list lists names skill://nope/SKILL.md among its files; the listed skills are "skill://git-workflow/SKILL.md"`},
		{[]string{"call", "--skill", "echo", "--", bin.raw, "-skills", "ok"}, "--skill does not apply to call"},
	} {
		t.Run(strings.Join(tc.args[:3], " "), func(t *testing.T) {
			t.Parallel()
			r := mcpprobe(t, tc.args...)
			if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, want 2 with %q:\n%s", r.code, tc.want, r.stderr)
			}
		})
	}
}

// Loading one skill asks for the listing and the one file, as a host
// does: no skills/get of every listed skill.
func TestSkillsReadAsksOnlyTheListing(t *testing.T) {
	t.Parallel()
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	r := mcpprobe(t, "read", "--trace", trace, "--skill", "skill://git-workflow/SKILL.md", "--", bin.raw, "-skills", "ok")
	b, err := os.ReadFile(trace)
	if r.code != 0 || err != nil {
		t.Fatalf("exit %d (%v): %s", r.code, err, r.stderr)
	}
	sent := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if v := gjson.Parse(l); v.Get("dir").String() == "send" {
			sent[gjson.Get(v.Get("raw").String(), "method").String()]++
		}
	}
	if sent["skills/list"] != 1 || sent["skills/get"] != 0 || sent["resources/read"] != 1 {
		t.Errorf("sent %v, want one skills/list, one resources/read and no skills/get", sent)
	}
}
