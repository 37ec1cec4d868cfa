package reports

import (
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/reports/terminal"
)

func TestCheck(t *testing.T) {
	const head = "# s — mcpprobe report\n\nProbed `./s` over stdio · protocol x · mcpprobe dev · "
	body := "\n\n## Findings\n\na\nb\nc\nd\ne\nf\ng\nh\n"
	for _, tc := range []struct {
		name, committed, fresh string
		want                   []string // lines the diff must hold; none means equal
	}{
		{"same", head + "2026-01-01" + body, head + "2026-01-01" + body, nil},
		{"only the date", head + "2026-01-01" + body, head + "2026-12-31" + body, nil},
		{"crlf", strings.ReplaceAll(head+"2026-01-01"+body, "\n", "\r\n"), head + "2026-01-01" + body, nil},
		{"changed line", head + "2026-01-01" + body, head + "2026-01-01" + strings.Replace(body, "e\n", "E\n", 1),
			[]string{"--- committed", "+++ fresh", "@@ -8,7 +8,7 @@", "-e", "+E", " b", " h"}},
		{"added line", head + "2026-01-01" + body, head + "2026-01-01" + body + "i\n",
			[]string{"@@ -12,3 +12,4 @@", "+i"}},
		{"only the version", head + "2026-01-01" + body, strings.Replace(head, "dev", "v1.0.0", 1) + "2026-01-01" + body, nil},
		{"the version and the date", head + "2026-01-01" + body, strings.Replace(head, "dev", "v1.0.0", 1) + "2026-12-31" + body, nil},
		{"the version and a line", head + "2026-01-01" + body, strings.Replace(head, "dev", "v1.0.0", 1) + "2026-01-01" + strings.Replace(body, "e\n", "E\n", 1),
			[]string{"-Probed `./s` over stdio · protocol x · mcpprobe dev · 2026-01-01", "+Probed `./s` over stdio · protocol x · mcpprobe v1.0.0 · 2026-01-01", "-e", "+E"}},
		// Only the header's own version is masked: the same words in a
		// finding are content.
		{"the version elsewhere", head + "2026-01-01" + body + "mcpprobe dev\n", head + "2026-01-01" + body + "mcpprobe v1.0.0\n",
			[]string{"+mcpprobe v1.0.0"}},
		{"the server names a version first", "# s\n\nProbed `./s` over stdio · protocol x (server/discover: a · mcpprobe evil · ) · mcpprobe dev · 2026-01-01" + body,
			"# s\n\nProbed `./s` over stdio · protocol x (server/discover: a · mcpprobe good · ) · mcpprobe v2 · 2026-01-01" + body,
			[]string{"+Probed `./s` over stdio · protocol x (server/discover: a · mcpprobe good · ) · mcpprobe v2 · 2026-01-01"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Check([]byte(tc.committed), []byte(tc.fresh))
			if tc.want == nil {
				if d != "" {
					t.Fatalf("want equal, got diff:\n%s", d)
				}
				return
			}
			lines := strings.Split(d, "\n")
			for _, w := range tc.want {
				found := false
				for _, l := range lines {
					found = found || l == w
				}
				if !found {
					t.Errorf("diff lacks line %q:\n%s", w, d)
				}
			}
		})
	}
}

func TestReportDate(t *testing.T) {
	for in, want := range map[string]string{
		"# x\n\nProbed `a` over stdio · mcpprobe dev · 2026-03-04\n\n": "2026-03-04",
		"no header\n": "",
	} {
		if got := ReportDate([]byte(in)); got != want {
			t.Errorf("ReportDate(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReportVersion(t *testing.T) {
	for in, want := range map[string]string{
		"# x\n\nProbed `a` over stdio · mcpprobe dev · 2026-03-04\n\n":                                "dev",
		"# x\n\nProbed `a` over stdio · mcpprobe v1.2.3-0.2026-abc+dirty · 2026-03-04\n":              "v1.2.3-0.2026-abc+dirty",
		"# x\n\nProbed `a` (server/discover: · mcpprobe x · 2026-01-01) · mcpprobe v2 · 2026-03-04\n": "v2",
		"no header\n": "",
	} {
		if got := ReportVersion([]byte(in)); got != want {
			t.Errorf("ReportVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

// A diff line wider than the terminal wraps, each continuation keeping
// its side's mark; what fits, and a pipe's diff, are untouched.
func TestFitDiff(t *testing.T) {
	d := "--- a\n+++ b\n@@ -1 +1 @@\n-" + strings.Repeat("word ", 10) + "end\n+short\n"
	got := FitDiff(d, 20)
	for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		if terminal.Width(l) > 20 {
			t.Errorf("line of %d columns: %q", terminal.Width(l), l)
		}
	}
	want := "--- a\n+++ b\n@@ -1 +1 @@\n-word word word\n-↪ word word word\n-↪ word word word\n-↪ word end\n+short\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if FitDiff(d, 0) != d {
		t.Errorf("width 0 changed the diff")
	}
	if got := FitDiff("-"+strings.Repeat("x", 30), 20); strings.HasSuffix(got, "\n") || strings.Count(got, "\n") != 1 {
		t.Errorf("a last line without newline: %q", got)
	}
}

// A committed file a pull request made huge gets a bounded answer: lines
// both share are compared a line at a time, and what differs is diffed
// only within MaxDiffLines, MaxDiffBytes and MaxDiffLine, else said to be
// past them, with where it starts.
func TestCheckBounds(t *testing.T) {
	const head = "# s — mcpprobe report\n\nProbed `./s` over stdio · protocol x · mcpprobe dev · 2026-01-01\n\n"
	fresh := head + "## Findings\n\nnone\n"
	many := strings.Repeat("x\n", 5_000_000)
	shared := strings.Repeat("same\n", 1_000_000)
	for _, tc := range []struct {
		name, committed, fresh string
		want                   []string
	}{
		{"5M lines", head + many, fresh, []string{"The files differ from line 5 on: 9.5 MiB of the committed file, past what --check diffs (20000 lines, 4.0 MiB or a line of 64.0 KiB on either side), so no diff is shown."}},
		{"one 60 MB line", head + strings.Repeat("y", 60<<20) + "\n", fresh, []string{"The files differ from line 5 on: 60.0 MiB of the committed file, past what --check diffs (20000 lines, 4.0 MiB or a line of 64.0 KiB on either side), so no diff is shown."}},
		{"a long line", head + strings.Repeat("y", 100<<10) + "\n", fresh, []string{"The files differ from line 5 on: a line of 100.0 KiB in the committed file, past what --check diffs (20000 lines, 4.0 MiB or a line of 64.0 KiB on either side), so no diff is shown."}},
		// One change deep in a long file: only its neighbourhood is diffed,
		// numbered where it is.
		{"one change after a million lines", head + shared + "old\n" + shared, strings.Replace(head, "dev", "v2", 1) + shared + "new\n" + shared,
			[]string{"@@ -3 +3 @@", "-Probed `./s` over stdio · protocol x · mcpprobe dev · 2026-01-01", "+Probed `./s` over stdio · protocol x · mcpprobe v2 · 2026-01-01",
				"@@ -1000002,7 +1000002,7 @@", "-old", "+new", " same"}},
		{"equal but for the version, a million lines", head + shared, strings.Replace(head, "dev", "v2", 1) + shared, nil},
		{"a missing last newline", head + "a\n", head + "a", []string{"-a", "+a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Check([]byte(tc.committed), []byte(tc.fresh))
			if tc.want == nil {
				if d != "" {
					t.Fatalf("want equal, got %.500s", d)
				}
				return
			}
			lines := strings.Split(d, "\n")
			if len(d) > 10_000 {
				t.Errorf("answer of %d bytes", len(d))
			}
			for _, w := range tc.want {
				found := false
				for _, l := range lines {
					found = found || l == w
				}
				if !found {
					t.Errorf("answer lacks line %q:\n%.2000s", w, d)
				}
			}
			if tc.name == "one change after a million lines" && strings.Count(d, "mcpprobe dev") != 1 {
				t.Errorf("the header line is shown %d times:\n%s", strings.Count(d, "mcpprobe dev"), d)
			}
		})
	}
}
