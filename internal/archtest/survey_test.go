package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

// The survey runs in process without the CLI (its Run is what cmd calls,
// and what its tests call), and the renderer stays above it: survey
// hands records to an Encode that reports provides.
func TestSurveyBelowTheCLI(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", module+"probe/survey").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps found %d packages: the test would pass vacuously", len(deps))
	}
	for _, d := range deps {
		if strings.HasPrefix(d, "github.com/urfave/cli") || d == module+"reports" || strings.HasPrefix(d, module+"cmd/") {
			t.Errorf("probe/survey depends on %s", d)
		}
	}
}
