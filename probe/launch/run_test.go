package launch

import (
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/findings"
)

// A run's findings: one per code, the first message with the count of the
// others; a nil run collects nothing; two runs keep their own.
func TestRunFindings(t *testing.T) {
	var none *Run
	none.add(findings.New(findings.MaxBytes, "lost"))
	if got := none.Findings(); got != nil {
		t.Errorf("nil run: %v", got)
	}
	a, b := &Run{}, &Run{}
	a.add(findings.New(findings.MaxBytes, "s1 too much"))
	a.add(findings.New(findings.EscapedProcesses, "s1 escaped"))
	a.add(findings.New(findings.MaxBytes, "s2 too much"))
	a.add(findings.New(findings.MaxBytes, "s3 too much"))
	got := a.Findings()
	if len(got) != 2 || got[0].Code != findings.MaxBytes || got[1].Code != findings.EscapedProcesses {
		t.Fatalf("findings = %v, want max-bytes then escaped-processes", got)
	}
	if want := "s1 too much (and so did 2 more of the servers this run started)"; got[0].Message != want {
		t.Errorf("message = %q, want %q", got[0].Message, want)
	}
	if got[1].Message != "s1 escaped" || strings.Contains(got[1].Message, "more") {
		t.Errorf("single finding's message = %q", got[1].Message)
	}
	if again := a.Findings(); again[0].Message != got[0].Message {
		t.Errorf("a second read changed the message: %q", again[0].Message)
	}
	if got := b.Findings(); len(got) != 0 {
		t.Errorf("the other run has %v", got)
	}
}
