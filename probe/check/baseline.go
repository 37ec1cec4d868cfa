package check

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/inputfile"
)

// MaxBaseline bounds a baseline file: a list of check ids is small, and a
// pull request controls the file.
const MaxBaseline = 64 << 10

// Baseline is a file of known failures: one check id a line, "id  #
// reason", blank lines and lines starting with # ignored. In spirit it is
// the official suite's --expected-failures file: a run fails only on a
// failure it does not list.
type Baseline struct {
	Path    string
	IDs     []string          // in the file's order
	Reasons map[string]string // by id, "" when none is given
}

// ReadBaseline reads and parses a baseline file through inputfile, with a
// bound. An unknown id is an error: a typo would otherwise list nothing.
func ReadBaseline(path string) (*Baseline, error) {
	data, err := inputfile.Read(path, MaxBaseline)
	if err != nil {
		return nil, probe.Optionf("--baseline: %v", err)
	}
	b, err := ParseBaseline(data)
	if err != nil {
		return nil, probe.Optionf("--baseline %s: %v", path, err)
	}
	b.Path = path
	return b, nil
}

// ParseBaseline parses a baseline file's bytes.
func ParseBaseline(data []byte) (*Baseline, error) {
	b := &Baseline{Reasons: map[string]string{}}
	known := IDs()
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), MaxBaseline)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, reason, _ := strings.Cut(line, "#")
		id, reason = strings.TrimSpace(id), strings.TrimSpace(reason)
		if strings.ContainsAny(id, " \t") {
			return nil, fmt.Errorf("line %d: one check id a line, then \"# reason\"; got %q", n, bound(line))
		}
		if !slices.Contains(known, id) {
			return nil, fmt.Errorf("line %d: no check has the id %q (mcpprobe check --help lists them in docs/reference.md)", n, bound(id))
		}
		if _, dup := b.Reasons[id]; !dup {
			b.IDs = append(b.IDs, id)
		}
		b.Reasons[id] = reason
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return b, nil
}

// Applied is what a baseline made of a run.
type Applied struct {
	Path string
	// New are the failing checks the baseline does not list.
	New []string
	// Fixed are listed checks that ran and failed in no era: they pass now
	// and can leave the file.
	Fixed []string
	// NotRun are listed checks that gave no verdict but not applicable.
	NotRun []string
}

// Apply marks each fail the baseline lists as known, with its reason, and
// says which fails are new and which listed ones pass now.
func (r *Result) Apply(b *Baseline) {
	a := &Applied{Path: b.Path}
	failed, judged := map[string]bool{}, map[string]bool{}
	for i := range r.Eras {
		for j := range r.Eras[i].Verdicts {
			v := &r.Eras[i].Verdicts[j]
			if v.Outcome != NotApplicable && v.Outcome != Inconclusive {
				judged[v.ID] = true
			}
			if v.Outcome != Fail {
				continue
			}
			failed[v.ID] = true
			if reason, ok := b.Reasons[v.ID]; ok {
				v.Known, v.Reason = true, reason
			} else if !slices.Contains(a.New, v.ID) {
				a.New = append(a.New, v.ID)
			}
		}
	}
	for _, id := range b.IDs {
		switch {
		case failed[id]:
		case judged[id]:
			a.Fixed = append(a.Fixed, id)
		default:
			a.NotRun = append(a.NotRun, id)
		}
	}
	r.Baseline = a
}

// Count is the verdicts of every era by outcome.
func (r *Result) Count() map[string]int {
	m := map[string]int{}
	for _, o := range Outcomes {
		m[o] = 0
	}
	for _, e := range r.Eras {
		for _, v := range e.Verdicts {
			m[v.Outcome]++
		}
	}
	return m
}

// Total is how many verdicts the run gave.
func (r *Result) Total() int {
	n := 0
	for _, e := range r.Eras {
		n += len(e.Verdicts)
	}
	return n
}

// NewFailures counts the fails no baseline lists.
func (r *Result) NewFailures() int {
	n := 0
	for _, e := range r.Eras {
		for _, v := range e.Verdicts {
			if v.Outcome == Fail && !v.Known {
				n++
			}
		}
	}
	return n
}

// Summary is the answer in one line: "N checks: P pass, F fail, …".
func (r *Result) Summary() string {
	c := r.Count()
	var parts []string
	for _, o := range Outcomes {
		parts = append(parts, fmt.Sprintf("%d %s", c[o], o))
	}
	s := fmt.Sprintf("%d checks: %s", r.Total(), strings.Join(parts, ", "))
	if r.Baseline != nil && c[Fail] > 0 {
		s += fmt.Sprintf(" (%d of the fails listed in the baseline)", c[Fail]-r.NewFailures())
	}
	return s
}

// Findings are the fails and warns as findings, for --fail-on: a fail
// the baseline lists is info (check-known-fail).
func (r *Result) Findings() []findings.Finding {
	var fs []findings.Finding
	for _, e := range r.Eras {
		for _, v := range e.Verdicts {
			msg := fmt.Sprintf("%s (%s): %s", v.ID, v.Era, v.Why)
			if v.Clause != nil {
				msg += "; " + v.Clause.String()
			}
			switch {
			case v.Outcome == Fail && v.Known:
				fs = append(fs, findings.New(findings.CheckKnownFail, "%s; listed in the baseline: %s", msg, v.Reason))
			case v.Outcome == Fail:
				fs = append(fs, findings.New(findings.CheckFail, "%s", msg))
			case v.Outcome == Warn:
				fs = append(fs, findings.New(findings.CheckWarn, "%s", msg))
			}
		}
	}
	return fs
}
