// Command cputime runs commands in turn (A B C A B C …) and prints, per
// command, the CPU time (user + system, the kernel's accounting of the
// reaped child and everything it waited for) of each run: median, min and
// max, and the median as a ratio to the first command's. Interleaving
// keeps the ratios meaningful when a shared machine's speed drifts.
//
// usage: cputime [-n RUNS] [-warmup W] NAME=COMMAND [NAME=COMMAND ...]
//
// COMMAND is split on spaces (no shell). The first line names the
// machine and the load average before the runs, the last the load average
// after them.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"
)

func main() {
	runs := flag.Int("n", 20, "timed runs of each command")
	warmup := flag.Int("warmup", 2, "untimed runs of each command first")
	flag.Parse()
	type cmd struct {
		name string
		argv []string
		cpu  []time.Duration
	}
	var cmds []*cmd
	for _, a := range flag.Args() {
		name, line, ok := strings.Cut(a, "=")
		if !ok || strings.TrimSpace(line) == "" {
			fmt.Fprintf(os.Stderr, "cputime: %q is not NAME=COMMAND\n", a)
			os.Exit(2)
		}
		cmds = append(cmds, &cmd{name: name, argv: strings.Fields(line)})
	}
	if len(cmds) == 0 {
		fmt.Fprintln(os.Stderr, "usage: cputime [-n RUNS] [-warmup W] NAME=COMMAND ...")
		os.Exit(2)
	}
	fmt.Printf("machine: %s, %d CPUs, %s; load average before: %s\n", cpuModel(), runtime.NumCPU(), runtime.GOOS+"/"+runtime.GOARCH, loadavg())
	for i := -*warmup; i < *runs; i++ {
		for _, c := range cmds {
			d, err := run(c.argv)
			if err != nil {
				fmt.Fprintf(os.Stderr, "cputime: %s: %v\n", c.name, err)
				os.Exit(1)
			}
			if i >= 0 {
				c.cpu = append(c.cpu, d)
			}
		}
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d)/1e6) }
	fmt.Printf("%d runs each after %d warm-up, interleaved\n\n", *runs, *warmup)
	fmt.Println("| what | CPU median | min | max | median ÷ " + cmds[0].name + " |")
	fmt.Println("|---|---|---|---|---|")
	base := median(cmds[0].cpu)
	for _, c := range cmds {
		m := median(c.cpu)
		fmt.Printf("| %s | %s ms | %s ms | %s ms | %.2f× |\n", c.name, ms(m), ms(slices.Min(c.cpu)), ms(slices.Max(c.cpu)), float64(m)/float64(base))
	}
	fmt.Printf("\nload average after: %s\n", loadavg())
}

// run starts argv with empty stdin and discarded output and returns the
// user+system time the kernel accounted to it.
func run(argv []string) (time.Duration, error) {
	c := exec.Command(argv[0], argv[1:]...)
	if err := c.Run(); err != nil {
		return 0, err
	}
	return c.ProcessState.UserTime() + c.ProcessState.SystemTime(), nil
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
