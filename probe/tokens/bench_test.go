package tokens

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The benchmarks put this package and tiktoken-go (with its offline loader,
// the implementation it replaced) side by side in one run, so their ratio is
// measured on the same machine at the same moment.
//
//	go test -run '^$' -bench . ./probe/tokens/                     # quick
//	go test -run '^$' -bench . -benchtime 1x ./probe/tokens/ -reflong # with the reference's slow cases
//
// scripts/bench-tokens.sh runs the second and prints the ratios.

var refLong = flag.Bool("reflong", false, "also time tiktoken-go where it takes seconds (80k-char runs, 10,000 tools)")

// childEnv selects what a re-executed test binary counts before it exits.
const childEnv = "TOKENS_BENCH_CHILD"

// TestBenchChild is the body of a fresh process for BenchmarkFreshProcess; it
// does nothing in a normal run.
func TestBenchChild(t *testing.T) {
	mode := os.Getenv(childEnv)
	if mode == "" {
		t.Skip("run by BenchmarkFreshProcess")
	}
	impl, list, _ := strings.Cut(mode, "/")
	names, items := toolList(map[string]int{"tools3": 3, "tools10k": 10000}[list])
	var err error
	switch impl {
	case "ours":
		_, err = OfTools(names, items)
	case "tiktoken-go":
		_, err = refOfTools(t, items)
	case "none":
	default:
		t.Fatalf("unknown mode %q", mode)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkFreshProcess times a whole process that loads the tokenizer and
// counts a tool list once, as `budget` does, and reports its peak RSS. "none"
// is the same process counting nothing: the floor the others stand on.
func BenchmarkFreshProcess(b *testing.B) {
	for _, list := range []string{"tools3", "tools10k"} {
		for _, impl := range []string{"none", "ours", "tiktoken-go"} {
			if list == "tools10k" && impl == "tiktoken-go" && !*refLong {
				continue
			}
			b.Run(list+"/"+impl, func(b *testing.B) {
				var rss int64
				for b.Loop() {
					cmd := exec.Command(os.Args[0], "-test.run=^TestBenchChild$", "-test.count=1")
					cmd.Env = append(os.Environ(), childEnv+"="+impl+"/"+list)
					if out, err := cmd.CombinedOutput(); err != nil {
						b.Fatalf("%v: %s", err, out)
					}
					rss = max(rss, peakRSS(cmd.ProcessState))
				}
				b.ReportMetric(float64(rss)/1024, "peak-RSS-MiB")
			})
		}
	}
}

// BenchmarkRun counts one unbroken run of a single character, the input that
// made the reference's merge quadratic.
func BenchmarkRun(b *testing.B) {
	for _, unit := range []string{"a", "_"} {
		for _, n := range []int{10_000, 80_000, 1_000_000} {
			s := strings.Repeat(unit, n)
			b.Run(fmt.Sprintf("%s/%d/ours", unit, n), func(b *testing.B) {
				b.SetBytes(int64(n))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Count(s); err != nil {
						b.Fatal(err)
					}
				}
			})
			// The reference takes 0.4 s at 10k, 10 s at 80k, and did not
			// finish 1M in ten minutes.
			if n > 10_000 && !(*refLong && n <= 80_000) {
				continue
			}
			b.Run(fmt.Sprintf("%s/%d/tiktoken-go", unit, n), func(b *testing.B) {
				b.SetBytes(int64(n))
				b.ReportAllocs()
				for b.Loop() {
					refCount(b, s)
				}
			})
		}
	}
}

// BenchmarkOfTools counts tool lists as `budget` does: each tool and the array.
func BenchmarkOfTools(b *testing.B) {
	for _, n := range []int{3, 10_000} {
		names, items := toolList(n)
		size := 0
		for _, it := range items {
			size += len(it)
		}
		b.Run(fmt.Sprintf("%d/ours", n), func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := OfTools(names, items); err != nil {
					b.Fatal(err)
				}
			}
		})
		if n > 3 && !*refLong {
			continue
		}
		b.Run(fmt.Sprintf("%d/tiktoken-go", n), func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := refOfTools(b, items); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkText counts ordinary text of a few kinds, to show the common case
// did not pay for the worst one.
func BenchmarkText(b *testing.B) {
	_, items := toolList(200)
	texts := map[string]string{
		"json":  string(items[0]) + string(items[1]),
		"prose": strings.Repeat(corpus[4]+" "+corpus[5]+" ", 20),
		"cjk":   strings.Repeat(corpus[15], 40),
		"emoji": strings.Repeat(corpus[14], 40),
	}
	for _, name := range []string{"json", "prose", "cjk", "emoji"} {
		s := texts[name]
		b.Run(name+"/ours", func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Count(s); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/tiktoken-go", func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for b.Loop() {
				refCount(b, s)
			}
		})
	}
}

// refOfTools is what OfTools did before: every tool, then the joined array.
func refOfTools(t testing.TB, items [][]byte) (int, error) {
	total := 0
	whole := []byte{'['}
	for i, raw := range items {
		total += refCount(t, string(raw))
		if i > 0 {
			whole = append(whole, ',')
		}
		whole = append(whole, raw...)
	}
	return total + refCount(t, string(append(whole, ']'))), nil
}

// toolList makes n tool definitions shaped like real ones, about 700 bytes
// each, the same for a given n on every run.
func toolList(n int) ([]string, [][]byte) {
	words := strings.Fields(`the a of to and in for with from by on file files path
		directory repository issue pull request branch commit query search result results
		user users name names id ids page pages list lists return returns create update
		delete get set read write open close JSON URL HTTP API token tokens limit offset
		optional required default value values string number boolean array object when
		if not only all each must should may including excluding maximum minimum between`)
	r := rand.New(rand.NewPCG(uint64(n), 13))
	sentence := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = words[r.IntN(len(words))]
		}
		s := strings.Join(w, " ")
		return strings.ToUpper(s[:1]) + s[1:] + "."
	}
	names := make([]string, n)
	items := make([][]byte, n)
	for i := range items {
		names[i] = fmt.Sprintf("tool_%05d_%s", i, words[r.IntN(len(words))])
		var props []string
		for p := range 3 + r.IntN(3) {
			props = append(props, fmt.Sprintf(`"%s_%d":{"type":"%s","description":"%s"}`,
				words[r.IntN(len(words))], p, []string{"string", "integer", "boolean"}[r.IntN(3)], sentence(6+r.IntN(10))))
		}
		items[i] = fmt.Appendf(nil, `{"name":"%s","description":"%s %s","inputSchema":{"type":"object","properties":{%s},"required":["%s"]}}`,
			names[i], sentence(12+r.IntN(12)), sentence(8+r.IntN(8)), strings.Join(props, ","), strings.SplitN(props[0], `"`, 3)[1])
	}
	return names, items
}
