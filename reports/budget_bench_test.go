package reports

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/budget"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
)

// scaleCapture is a capture of n small tools shaped as rawserver -many n
// -many-desc 100 serves them (a description of about 100 bytes, a
// two-property input schema).
func scaleCapture(n int) *probe.Capture {
	words := []string{" Returns the matching records", " for the given query,", " sorted by relevance;", " use the cursor", " to fetch the next page."}
	instr := "Use the tools well."
	c := &probe.Capture{Target: "scale", Instructions: &instr, Tools: probe.List{Method: "tools/list", Key: "tools", Asked: true}}
	for i := range n {
		d := fmt.Sprintf("Tool number %d.", i)
		for j := 0; len(d) < 100; j++ {
			d += words[(i+j)%len(words)]
		}
		c.Tools.Items = append(c.Tools.Items, fmt.Appendf(nil, `{"name":"tool_%04d","description":%q,"inputSchema":{"type":"object","properties":{"q":{"type":"string","description":"what to find"},"limit":{"type":"integer"}}}}`, i, d))
	}
	return c
}

// BenchmarkBudget is budget's work past the wire at several sizes: the
// analysis (every host's delivery, lint, token counts) and its text and
// JSON renderings. ns/op over N should stay flat (linear work);
// scripts/bench-scale.sh prints the exponent of the whole command.
func BenchmarkBudget(b *testing.B) {
	ch, err := hosts.Resolve(hosts.Flags{})
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1000, 10000, 50000} {
		c := scaleCapture(n)
		b.Run(fmt.Sprintf("analyse/N=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := budget.Analyse(context.Background(), c, ch.Selected, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/tool")
		})
		r, err := budget.Analyse(context.Background(), c, ch.Selected, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("text/N=%d", n), func(b *testing.B) {
			for b.Loop() {
				BudgetText(io.Discard, r, false)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/tool")
		})
		b.Run(fmt.Sprintf("json/N=%d", n), func(b *testing.B) {
			var size int
			for b.Loop() {
				size = len(BudgetSection(r))
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/tool")
			b.ReportMetric(float64(size)/float64(n), "bytes/tool")
		})
	}
}
