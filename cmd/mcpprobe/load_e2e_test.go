//go:build e2e

package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/load"
	"github.com/tidwall/gjson"
)

// loadJSON runs load --json and returns its validated section.
func loadJSON(t *testing.T, code int, args ...string) gjson.Result {
	t.Helper()
	r := mcpprobe(t, append([]string{"load", "--json"}, args...)...)
	if r.code != code {
		t.Fatalf("load %q: exit %d, want %d: %s", args, r.code, code, r.stderr)
	}
	return section(t, "load", r.stdout)
}

func ints(v gjson.Result) []int64 {
	var out []int64
	for _, x := range v.Array() {
		out = append(out, x.Int())
	}
	return out
}

// Many HTTP sessions against goodserver -http: every session's phases,
// every request counted once, in schedule order per method.
func TestLoadHTTP(t *testing.T) {
	t.Parallel()
	url := serveOn(t, bin.good, "-http", "127.0.0.1:0")
	v := loadJSON(t, 0, "--rate", "200/s", "--requests", "60", "--sessions", "3", "--call", "find_orders", "--call", "order_total", "--args", `{"id":"A-1001"}`, url)
	if v.Get("transport").String() != "http" || v.Get("sessions").Int() != 3 {
		t.Errorf("transport %s sessions %d", v.Get("transport"), v.Get("sessions").Int())
	}
	for _, ph := range []string{"phases.0", "phases.1"} {
		if n := v.Get(ph + ".ok").Int(); n != 3 || len(v.Get(ph+".samples_ns").Array()) != 3 {
			t.Errorf("%s (%s): ok %d, want one per session", ph, v.Get(ph+".name"), n)
		}
	}
	if v.Get("phases.0.name").String() != "session: handshake" || v.Get("phases.1.name").String() != "session: first tools/list" {
		t.Errorf("phases %s", v.Get("phases.#.name"))
	}
	all := v.Get("steps.0.all")
	if all.Get("requests").Int() != 60 || all.Get("ok").Int() != 60 || len(all.Get("samples_ns").Array()) != 60 || len(all.Get("service_ns").Array()) != 60 {
		t.Fatalf("all: requests %d ok %d samples %d", all.Get("requests").Int(), all.Get("ok").Int(), len(all.Get("samples_ns").Array()))
	}
	// Request k is call k mod 2: 30 each, in the calls' order.
	if got := v.Get("steps.0.methods.#.name").String(); got != `["tools/call find_orders","tools/call order_total"]` {
		t.Errorf("methods %s", got)
	}
	for i := 0; i < 2; i++ {
		if n := v.Get("steps.0.methods." + strconv.Itoa(i) + ".ok").Int(); n != 30 {
			t.Errorf("method %d: ok %d, want 30", i, n)
		}
	}
	// Each latency counts from its due time, so it is at least its
	// service time.
	lat, svc := ints(all.Get("samples_ns")), ints(all.Get("service_ns"))
	for i := range lat {
		if lat[i] < svc[i] || svc[i] <= 0 {
			t.Fatalf("request %d: latency %d below service %d", i, lat[i], svc[i])
		}
	}
	if v.Get("resources").Type != gjson.Null {
		t.Errorf("a URL has no resources to read: %s", v.Get("resources"))
	}
	// The generator's own CPU over the steps, beside the server's: every
	// request sent is counted.
	if g := v.Get("generator"); g.Get("requests").Int() != 60 || g.Get("cpu_ns").Int() <= 0 {
		t.Errorf("generator %s", g)
	}
	if v.Get("knee.last_good_rate").Float() != 200 || v.Get("knee.knee_rate").Type != gjson.Null {
		t.Errorf("knee %s", v.Get("knee"))
	}
}

// A stdio target: one process per session, their resources read from
// /proc; errors are timed and counted.
func TestLoadStdio(t *testing.T) {
	t.Parallel()
	v := loadJSON(t, 0, "--rate", "100/s", "--requests", "20", "--sessions", "2", "--call", "order_total", bin.good)
	all := v.Get("steps.0.all")
	// order_total with minimal arguments names no order: an isError
	// result, timed and counted.
	if all.Get("errors").Int() != 20 || all.Get("ok").Int() != 0 || all.Get("n").Int() != 20 || !strings.Contains(all.Get("first_error").String(), "isError") {
		t.Errorf("all: %s", all.Get("@this").Raw[:300])
	}
	if v.Get("transport").String() != "stdio" {
		t.Errorf("transport %s", v.Get("transport"))
	}
	if runtime.GOOS == "linux" {
		if v.Get("resources.processes").Int() != 2 || v.Get("resources.rss_peak_bytes").Int() <= 0 || v.Get("resources.source").String() != "/proc" {
			t.Errorf("resources %s", v.Get("resources"))
		}
	}
	// The errors break --max-errors (0.01 by default): the knee gate.
	r := mcpprobe(t, "load", "--fail-on", "knee", "--rate", "100/s", "--requests", "5", "--sessions", "1", "--call", "order_total", bin.good)
	if r.code != 1 || !strings.Contains(r.stdout, "broken at 100/s: error ratio 1.0000") {
		t.Errorf("--fail-on knee: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// A server that stalls 1 s on the 5th call: every request due during the
// stall is charged its wait, as an open-loop client sees it. The bound is
// the stall's own length: request 5+j was due j × 20 ms after the stall
// began and answered after it ended, so its latency is at least
// 1 s − j × 20 ms, however fast or slow the machine; its service time
// (from its late send) does not carry that wait.
func TestLoadCoordinatedOmission(t *testing.T) {
	t.Parallel()
	url := serveOn(t, bin.good, "-http", "127.0.0.1:0", "-stall-after", "5", "-stall", "1s")
	v := loadJSON(t, 0, "--rate", "50/s", "--requests", "50", "--sessions", "1", "--call", "find_orders", url)
	all := v.Get("steps.0.all")
	lat := ints(all.Get("samples_ns"))
	if len(lat) != 50 {
		t.Fatalf("%d samples, want 50", len(lat))
	}
	for j := 0; j <= 25; j++ {
		if min := int64(1e9) - int64(j)*20e6; lat[4+j] < min {
			t.Errorf("request %d: latency %d ns, below the %d ns it waited for the stall", 4+j, lat[4+j], min)
		}
	}
	if p99 := all.Get("p99_ns").Float(); p99 < 0.9e9 {
		t.Errorf("p99 %.0f ns hides a 1 s stall", p99)
	}
	if load.Percentile(ints(all.Get("service_ns")), 50) >= all.Get("p50_ns").Float() {
		t.Errorf("service p50 %v not below latency p50 %v: the wait is not told apart", all.Get("service_p50_ns"), all.Get("p50_ns"))
	}
}

// A ramp past a known capacity (one worker, 50 ms a call: 20/s): the
// step at 400/s cannot keep a 500 ms p99 however fast the machine (its
// 40 requests take 2 s of service), so the knee is found at or before it
// and the ramp stops there.
func TestLoadRampFindsKnee(t *testing.T) {
	t.Parallel()
	url := serveOn(t, bin.good, "-http", "127.0.0.1:0", "-workers", "1", "-service", "50ms")
	v := loadJSON(t, 1, "--ramp", "10:810:400", "--requests", "40", "--max-p99", "500ms", "--sessions", "8", "--call", "find_orders", "--fail-on", "knee", url)
	k := v.Get("knee.knee_rate").Float()
	if k != 10 && k != 410 {
		t.Fatalf("knee %s, want 10 or 410", v.Get("knee"))
	}
	if !strings.Contains(v.Get("knee.why").String(), "over --max-p99 500ms") {
		t.Errorf("why %s", v.Get("knee.why"))
	}
	if got := v.Get("not_run").Array(); len(got) == 0 || got[len(got)-1].Float() != 810 {
		t.Errorf("not run %s, want the rates after the knee", v.Get("not_run"))
	}
	if k == 410 && v.Get("knee.last_good_rate").Float() != 10 {
		t.Errorf("last good %s", v.Get("knee.last_good_rate"))
	}
}

// Three shards of one run against one server, each its own process and
// file, merged: the merged percentiles are those of the union of the
// shards' samples, every request of the schedule counted once.
func TestLoadShardsMerge(t *testing.T) {
	t.Parallel()
	url := serveOn(t, bin.good, "-http", "127.0.0.1:0")
	dir := t.TempDir()
	var files []string
	union := map[string][]int64{}
	total := 0
	for i := 0; i < 3; i++ {
		f := filepath.Join(dir, "shard-"+strconv.Itoa(i)+".json")
		r := mcpprobe(t, "load", "--json", "-o", f, "--shard", strconv.Itoa(i)+"/3", "--start-at", "2026-01-01T00:00:00Z", "--ramp", "60:120:60", "--requests", "31", "--sessions", "2", "--call", "find_orders", url)
		if r.code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, r.code, r.stderr)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		v := section(t, "load", string(b))
		if v.Get("shards.0.index").Int() != int64(i) || v.Get("shard_count").Int() != 3 {
			t.Fatalf("shard %d: %s", i, v.Get("shards"))
		}
		for s := 0; s < 2; s++ {
			key := strconv.Itoa(s)
			union[key] = append(union[key], ints(v.Get("steps."+key+".all.samples_ns"))...)
			total += int(v.Get("steps." + key + ".all.requests").Int())
		}
		files = append(files, f)
	}
	// 31 requests a step, dealt 11, 10, 10.
	if total != 62 {
		t.Fatalf("the shards scheduled %d requests, want 2 × 31", total)
	}
	slices.Reverse(files) // any order
	r := mcpprobe(t, append([]string{"load", "merge", "--json"}, files...)...)
	if r.code != 0 {
		t.Fatalf("merge: exit %d: %s", r.code, r.stderr)
	}
	m := section(t, "load", r.stdout)
	if m.Get("shards.#").Int() != 3 || m.Get("sessions").Int() != 6 {
		t.Errorf("merged shards %s sessions %d", m.Get("shards"), m.Get("sessions").Int())
	}
	for s := 0; s < 2; s++ {
		key := strconv.Itoa(s)
		all := m.Get("steps." + key + ".all")
		if all.Get("requests").Int() != 31 || all.Get("n").Int() != int64(len(union[key])) {
			t.Errorf("step %d: requests %d n %d, want 31 and %d", s, all.Get("requests").Int(), all.Get("n").Int(), len(union[key]))
		}
		for _, q := range []struct {
			field string
			p     float64
		}{{"min_ns", 0}, {"p50_ns", 50}, {"p90_ns", 90}, {"p95_ns", 95}, {"p99_ns", 99}, {"p999_ns", 99.9}, {"max_ns", 100}} {
			if got, want := all.Get(q.field).Float(), load.Percentile(union[key], q.p); got != want {
				t.Errorf("step %d %s: merged %v, want %v over the union of the shards' samples", s, q.field, got, want)
			}
		}
	}
	// A shard given twice, or one missing, is refused.
	for _, bad := range [][]string{{files[0], files[0], files[1]}, {files[0], files[1]}} {
		r := mcpprobe(t, append([]string{"load", "merge"}, bad...)...)
		if r.code != 2 || !strings.Contains(r.stderr, "load merge:") {
			t.Errorf("merge %v: exit %d: %s", bad, r.code, r.stderr)
		}
	}
}

// Two replicas of a stateless server, one of which names itself in
// find_orders' result: the answer depends on the replica, and says so.
func TestLoadReplicas(t *testing.T) {
	t.Parallel()
	a := serveOn(t, bin.good, "-http", "127.0.0.1:0", "-stateless")
	b := serveOn(t, bin.good, "-http", "127.0.0.1:0", "-stateless")
	c := serveOn(t, bin.good, "-http", "127.0.0.1:0", "-stateless", "-replica", "c")
	same := loadJSON(t, 0, "--rate", "100/s", "--requests", "20", "--sessions", "2", "--call", "find_orders", "--replica", b, a)
	if same.Get("replica_check.dependent").Int() != 0 || same.Get("replica_check.requests.0.answered").String() != "[10,10]" {
		t.Errorf("same replicas: %s", same.Get("replica_check"))
	}
	r := mcpprobe(t, "load", "--json", "--rate", "100/s", "--requests", "20", "--sessions", "2", "--call", "find_orders", "--replica", c, a)
	v := envelope(t, "load", r.stdout)
	rc := v.Get("load.replica_check")
	if rc.Get("dependent").Int() != 1 || rc.Get("requests.0.normalised_same").Bool() || !strings.Contains(rc.Get("requests.0.examples.1").String(), `"replica":"c"`) {
		t.Errorf("dependent replica: %s", rc)
	}
	if !has(findingCodes(v), "replica-dependent") {
		t.Errorf("findings %v", findingCodes(v))
	}
	// A session-bound server has no replicas to spread over.
	legacy := serveOn(t, bin.good, "-http", "127.0.0.1:0")
	if r := mcpprobe(t, "load", "--rate", "10/s", "--requests", "2", "--replica", legacy, legacy); r.code != 2 || !strings.Contains(r.stderr, "stateless") {
		t.Errorf("replicas of a stateful server: exit %d: %s", r.code, r.stderr)
	}
}

func TestLoadUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{bin.good}, "load needs --rate R/s or --ramp FROM:TO:STEP"},
		{[]string{"--rate", "10/s", "--ramp", "1:2:1", bin.good}, "--rate and --ramp conflict"},
		{[]string{"--ramp", "10:5:1", bin.good}, "TO is below FROM"},
		{[]string{"--ramp", "1:1000:1", bin.good}, "at most 50"},
		{[]string{"--rate", "5000/s", "http://127.0.0.1:1/mcp"}, "over the cap of 2000/s; give --i-know"},
		{[]string{"--rate", "10/s", "--sessions", "33", bin.good}, "over the cap of 32 stdio processes"},
		{[]string{"--rate", "10/s", "--sessions", "0", bin.good}, "--sessions 0"},
		{[]string{"--rate", "1000/s", "--duration", "10m", "http://127.0.0.1:1/mcp"}, "over the cap of 200000"},
		{[]string{"--rate", "10/s", "http://example.com/mcp"}, "not a loopback address"},
		{[]string{"--rate", "10/s", "--replica", "http://10.0.0.1/mcp", "http://127.0.0.1:1/mcp"}, "http://10.0.0.1/mcp is not a loopback address"},
		{[]string{"--rate", "10/s", "--replica", "http://127.0.0.1:2/mcp", bin.good}, "--replica takes URLs"},
		{[]string{"--rate", "10/s", "--max-errors", "2", bin.good}, "--max-errors"},
		{[]string{"--rate", "10/s", "--requests", "5", "--duration", "1s", bin.good}, "--requests and --duration conflict"},
		{[]string{"--rate", "10/s", "--shard", "3/3", bin.good}, "shard"},
		{[]string{"--rate", "10/s", "--trace", "x", bin.good}, "--trace"},
		{[]string{"merge"}, "load merge needs the shards' files"},
		{[]string{"--rate", "10/s", "--start-at", "soon", bin.good}, "--start-at \"soon\": want a time in RFC 3339"},
		{[]string{"--rate", "10/s", "--start-at", "2099-01-01T00:00:00Z", bin.good}, "is more than 1h0m0s away"},
	} {
		r := mcpprobe(t, append([]string{"load"}, tc.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("load %q: exit %d, want 2 saying %q: %s", tc.args, r.code, tc.want, r.stderr)
		}
	}
}

// serveLines runs a server and hands back its URL and a channel of every
// later line it writes.
func serveLines(t *testing.T, argv ...string) (string, <-chan string) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); pw.Close() })
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	select {
	case l := <-lines:
		u := listenURL.FindString(l)
		if u == "" {
			t.Fatalf("no URL in %q", l)
		}
		return u, lines
	case <-time.After(bound(20 * time.Second)):
		t.Fatalf("%v did not say where it listens", argv)
	}
	return "", nil
}

// Ctrl-C during a run: mcpprobe exits 130 and prints what it has, the
// requests answered before the interrupt; those in flight are left out,
// not counted as the server's failures. One session sends one request at
// a time, so the two before the stall were answered before it began.
func TestLoadInterrupted(t *testing.T) {
	t.Parallel()
	url, lines := serveLines(t, bin.good, "-http", "127.0.0.1:0", "-stall-after", "3", "-stall", "60s")
	cmd := exec.Command(bin.mcpprobe, "load", "--json", "--rate", "50/s", "--duration", "30s", "--sessions", "1", "--call", "find_orders", url)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case l := <-lines:
		if !strings.Contains(l, "stalling at tools/call 3") {
			t.Fatalf("server said %q", l)
		}
	case <-time.After(bound(30 * time.Second)):
		_ = cmd.Process.Kill()
		t.Fatal("the server never stalled")
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(bound(20 * time.Second)):
		_ = cmd.Process.Kill()
		t.Fatal("load did not end after SIGINT")
	}
	if cmd.ProcessState.ExitCode() != 130 {
		t.Fatalf("exit %d, want 130: %s", cmd.ProcessState.ExitCode(), errb.String())
	}
	v := section(t, "load", out.String())
	all := v.Get("steps.0.all")
	if !v.Get("interrupted").Bool() || all.Get("requests").Int() != 2 || all.Get("ok").Int() != 2 || all.Get("unsent").Int() != 0 {
		t.Errorf("interrupted %v, requests %d ok %d unsent %d; want the 2 answered before the stall", v.Get("interrupted"), all.Get("requests").Int(), all.Get("ok").Int(), all.Get("unsent").Int())
	}
	if !strings.Contains(errb.String(), "interrupted by SIGINT during load") || !strings.Contains(errb.String(), "partial") {
		t.Errorf("stderr: %s", errb.String())
	}
}
