package archtest

import "testing"

// A config run (--config FILE --all) is probe/config's: the CLI hands it
// flags and prints its result. It knows no renderer and no CLI, so that
// the survey or a test can run one the same way.
func TestConfigRunIsDomain(t *testing.T) {
	for _, to := range []string{"reports", "cmd/mcpprobe"} {
		forbid(t, "probe/config", to, "the run of every server is domain; rendering it is reports', reading flags the CLI's")
	}
	found := false
	for _, p := range imports(t, "cmd/mcpprobe") {
		found = found || p == "probe/config"
	}
	if !found {
		t.Fatal("cmd/mcpprobe does not import probe/config: --all no longer runs through it")
	}
}
