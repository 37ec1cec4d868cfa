package reports

import (
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/load"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
)

// The generator's CPU per request is printed beside the server's, so a
// reader can tell the load's cost from the server's.
func TestLoadGeneratorLine(t *testing.T) {
	for _, c := range []struct {
		name string
		r    load.Result
		want string // "" : no generator line
	}{
		{"with the server's", load.Result{Generator: &load.Generator{CPUNs: 50_000_000, Requests: 1000}, Resources: &load.Resources{Source: "/proc", Processes: 1, CPUNs: 80_000_000}},
			"load generator (mcpprobe itself, over the steps): CPU 50.00 ms, 50.0 µs a request for 1,000 requests sent; the server's CPU over the whole run, sessions opened included, is 80.0 µs a request\n"},
		{"a URL", load.Result{Generator: &load.Generator{CPUNs: 2_000_000, Requests: 4}},
			"load generator (mcpprobe itself, over the steps): CPU 2.00 ms, 500.0 µs a request for 4 requests sent\n"},
		{"nothing sent", load.Result{Generator: &load.Generator{CPUNs: 2_000_000}}, ""},
		{"not measured", load.Result{}, ""},
	} {
		var b strings.Builder
		Load(&b, terminal.Terminal, &c.r)
		var got string
		for _, l := range strings.SplitAfter(b.String(), "\n") {
			if strings.HasPrefix(l, "load generator") {
				got = l
			}
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
