package load

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/mcpprobe/mcpprobe/probe/launch"
)

func TestOptionsCheck(t *testing.T) {
	base := func() Options {
		return Options{Spec: dial.Spec{Target: launch.Target{Kind: "http", URL: "http://127.0.0.1:1/mcp"}},
			Sessions: 4, Rates: []float64{100}, Duration: 10 * time.Second, Shard: Shard{0, 1}, Bound: Bound{MaxErrors: 0.01}}
	}
	for _, tc := range []struct {
		name string
		edit func(*Options)
		want string // "" for accepted
	}{
		{"the defaults", func(*Options) {}, ""},
		{"no rate", func(o *Options) { o.Rates = nil }, "give --rate or --ramp"},
		{"over the rate cap", func(o *Options) { o.Rates = []float64{MaxRate + 1} }, "over the cap of 2000/s"},
		{"over the rate cap, --i-know", func(o *Options) { o.Rates = []float64{MaxRate + 1}; o.Requests = 10; o.Unbounded = true }, ""},
		{"over the request cap", func(o *Options) { o.Rates = []float64{1000}; o.Duration = 10 * time.Minute }, "over the cap of 200000"},
		{"past the hard cap, even with --i-know", func(o *Options) { o.Requests = HardMaxRequest + 1; o.Unbounded = true }, "over the cap"},
		{"HTTP sessions cap", func(o *Options) { o.Sessions = MaxSessions + 1 }, "256 sessions"},
		{"stdio processes cap", func(o *Options) { o.Target = launch.Target{Kind: "stdio", Command: "x"}; o.Sessions = MaxProcesses + 1 }, "32 stdio processes"},
		{"processes cap, --i-know", func(o *Options) {
			o.Target = launch.Target{Kind: "stdio", Command: "x"}
			o.Sessions = 100
			o.Unbounded = true
		}, ""},
		{"no session", func(o *Options) { o.Sessions = 0 }, "--sessions"},
		{"a shard out of range", func(o *Options) { o.Shard = Shard{3, 3} }, "--shard 3/3"},
		{"an error bound over 1", func(o *Options) { o.Bound.MaxErrors = 1.5 }, "--max-errors"},
		{"too many steps", func(o *Options) { o.Rates = make([]float64, MaxSteps+1) }, "steps"},
		{"a start too far ahead", func(o *Options) { o.StartAt = time.Now().Add(2 * time.Hour) }, "--start-at"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := base()
			tc.edit(&o)
			err := o.Check()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}
