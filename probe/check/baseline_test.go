package check

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseBaseline(t *testing.T) {
	b, err := ParseBaseline([]byte("# known failures\n\nping.empty-result  # the SDK answers {\"pong\":true}\nmalformed.batch\n ping.empty-result # twice\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(b.IDs, []string{"ping.empty-result", "malformed.batch"}) || b.Reasons["ping.empty-result"] != "twice" || b.Reasons["malformed.batch"] != "" {
		t.Errorf("parsed %v %v", b.IDs, b.Reasons)
	}
	for in, want := range map[string]string{
		"ping.empty  # typo":        `line 1: no check has the id "ping.empty"`,
		"ok\nping.empty-result x y": `line 1: no check has the id "ok"`,
		"ping.empty-result x":       "one check id a line",
	} {
		if _, err := ParseBaseline([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseBaseline(%q) = %v, want %q", in, err, want)
		}
	}
}

func TestReadBaselineBounded(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, []byte(strings.Repeat("# x\n", MaxBaseline)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadBaseline(big); err == nil {
		t.Error("a baseline past MaxBaseline was read")
	}
	if _, err := ReadBaseline(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "--baseline") {
		t.Errorf("a missing baseline: %v", err)
	}
}

func TestApply(t *testing.T) {
	r := &Result{Eras: []EraResult{
		{Era: Legacy, Served: true, Verdicts: []Verdict{
			{ID: IDPing, Era: Legacy, Outcome: Fail},
			{ID: IDToolsList, Era: Legacy, Outcome: Fail},
			{ID: IDInputSchema, Era: Legacy, Outcome: Pass},
			{ID: IDSetLevel, Era: Legacy, Outcome: NotApplicable},
		}},
		{Era: Modern, Served: true, Verdicts: []Verdict{
			{ID: IDResultType, Era: Modern, Outcome: Fail},
		}},
	}}
	b, err := ParseBaseline([]byte(IDPing + " # known\n" + IDInputSchema + " # fixed since\n" + IDSetLevel + "\n" + IDResultType + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	r.Apply(b)
	a := r.Baseline
	if !reflect.DeepEqual(a.New, []string{IDToolsList}) || !reflect.DeepEqual(a.Fixed, []string{IDInputSchema}) || !reflect.DeepEqual(a.NotRun, []string{IDSetLevel}) {
		t.Errorf("new %v fixed %v not run %v", a.New, a.Fixed, a.NotRun)
	}
	if r.NewFailures() != 1 || !r.Eras[0].Verdicts[0].Known || r.Eras[0].Verdicts[0].Reason != "known" || r.Eras[0].Verdicts[1].Known {
		t.Errorf("new failures %d, verdicts %+v", r.NewFailures(), r.Eras[0].Verdicts[:2])
	}
	if got := r.Summary(); got != "5 checks: 1 pass, 3 fail, 0 warn, 0 observed, 0 inconclusive, 1 not-applicable (2 of the fails listed in the baseline)" {
		t.Errorf("Summary = %q", got)
	}
	var codes []string
	for _, f := range r.Findings() {
		codes = append(codes, f.Code.String()+" "+string(f.Severity))
	}
	if !reflect.DeepEqual(codes, []string{"check-known-fail info", "check-fail error", "check-known-fail info"}) {
		t.Errorf("findings %v", codes)
	}
}
