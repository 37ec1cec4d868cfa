// Package survey probes many servers: a fleet's list, host config files,
// or the official MCP registry's server.json entries. Each server is
// probed (wire and budget, and more when asked) in its own process group
// with a wall-clock bound, in a private environment, and written as one
// JSON line as soon as it ends. The input is streamed, the concurrency
// bounded, and a run can be split in shards by server id and resumed.
package survey

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpprobe/mcpprobe/faults"
	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/bench"
	"github.com/mcpprobe/mcpprobe/probe/budget"
	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/probe/malformed"
	"github.com/mcpprobe/mcpprobe/probe/wire"
)

// DefaultJobs and DefaultPerServer are the defaults of --jobs and
// --per-server-timeout.
const (
	DefaultJobs      = 4
	DefaultPerServer = 60 * time.Second
)

// Extras that --with adds to wire and budget.
const (
	WithBench     = "bench"
	WithFaults    = "faults"
	WithMalformed = "malformed"
)

// Options are one survey run.
type Options struct {
	Inputs []string
	Jobs   int
	Shard  Shard
	// Out is the results file, a record a line as each server ends; ""
	// writes them to Stdout. With Resume, the records Out already holds
	// are kept and their servers skipped: a run stopped at any moment
	// goes on where it stopped.
	Out    string
	Resume bool
	Stdout io.Writer
	// Encode makes a record's line (reports.SurveyLine): what a record
	// holds is survey's (Section), how it is rendered the renderer's.
	Encode func(*Record) []byte
	// Notice hears what a person should know before the run starts: the
	// partial line a stopped run left, cut away.
	Notice func(string)
	// PerServer bounds each server's whole probe, --with sections
	// included (DefaultPerServer if 0).
	PerServer time.Duration
	// Sandbox, when set, wraps every command: its words, then the
	// server's command and arguments. A URL entry is refused.
	Sandbox []string
	With    []string
	Launch  launch.Options
	Probe   probe.Options
	Hosts   []hosts.Host
	// Scratch is where each server's private HOME and TMPDIR are made
	// and removed ("": the system's temporary folder).
	Scratch string
	// Progress hears the counts after each change.
	Progress func(Tally)

	// skip says which ids are already done (--resume); nil skips none.
	skip func(id string) bool
	// emit writes a record; it is called from the workers, and must be
	// safe for concurrent use (Output.Write is).
	emit func(*Record) error

	// shadow gathers each host config's servers' tools (Run sets it).
	shadow *shadowing

	// analysing bounds the budgets worked out at once (Run sets it): a
	// budget is CPU work whose memory follows what the server sent, so
	// --jobs of them at once on fewer cores only multiply the memory.
	analysing chan struct{}
}

// Tally is a run's progress.
type Tally struct {
	Read, Done, Failed, InFlight int
	Skipped, OtherShard, Dup     int
	// Total is how many entries the run will probe, counted in a first
	// pass over the input when there is a progress line to show it.
	Total int
}

// Result is a survey run's account: what was read, probed, skipped.
type Result struct {
	Digest string
	Tally
	// Duplicates are ids the input gave twice (the first was probed),
	// the first few of them.
	Duplicates []string
	// Shadowing are the tool-shadowing findings of each host config read
	// whole: tools of two of its servers that a model can mistake for
	// each other. Servers skipped (--resume, other shards) are not in it.
	Shadowing []ConfigFinding
}

// Findings: a survey's findings are in its records, one server each,
// but for those of a host config as a whole (Shadowing).
func (r *Result) Findings() []findings.Finding {
	var out []findings.Finding
	for _, f := range r.Shadowing {
		out = append(out, f.Finding)
	}
	return out
}

// Counts are the run's totals, by name.
func (r *Result) Counts() map[string]int {
	return map[string]int{"done": r.Done, "failed": r.Failed, "skipped": r.Skipped, "other_shard": r.OtherShard, "duplicate": r.Dup}
}

// ErrInterrupted is Run's error when ctx ended the run: the records of
// the servers in flight were not written, and --resume probes them again.
var ErrInterrupted = errors.New("survey interrupted")

// UsageError is a run that cannot start as asked: an input that is not a
// file, an unknown --with, a --resume of another run's file (the CLI's
// exit 2).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usage(format string, args ...any) error { return &UsageError{Msg: fmt.Sprintf(format, args...)} }

// WriteError is results that could not be written (the CLI's exit 4);
// What names the output.
type WriteError struct {
	What string
	Err  error
}

func (e *WriteError) Error() string { return e.What + ": " + e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// Run checks the options, opens the output (reading what a resumed one
// holds), reads the inputs, probes every entry of the shard not already
// done with at most Jobs at a time, and writes each record as it ends. A
// server that cannot be probed is a failed record, not an error; options
// or an input that cannot be run are a UsageError, an output that cannot
// be written a WriteError, and an interrupted run ErrInterrupted (with
// its Result).
func Run(ctx context.Context, o Options) (*Result, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	digest, err := Digest(o.Inputs)
	if err != nil {
		return nil, usage("survey input: %v", err)
	}
	out, err := o.open(digest)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	o.emit = func(r *Record) error { return out.Write(o.Encode(r)) }
	res, err := o.run(ctx, digest)
	var we *WriteError
	switch {
	case errors.Is(err, ErrInterrupted), errors.As(err, &we), err == nil:
		return res, err
	}
	return res, usage("survey input: %v", err)
}

// check refuses what cannot run, and fills in the defaults.
func (o *Options) check() error {
	for _, in := range o.Inputs {
		if st, err := os.Stat(in); err != nil || st.IsDir() {
			return usage("survey input %s: want a file (JSON lines, a host config, or a server.json)", in)
		}
	}
	if len(o.Inputs) == 0 {
		return usage("survey needs at least one input: a JSON-lines file of servers, a host config file, or a server.json")
	}
	for _, w := range o.With {
		if w != WithBench && w != WithFaults && w != WithMalformed {
			return usage("--with %q: want bench, faults or malformed", w)
		}
	}
	if o.Resume && o.Out == "" {
		return usage("--resume reads the ids already in -o FILE: give -o")
	}
	if o.Encode == nil || o.Out == "" && o.Stdout == nil {
		return errors.New("survey: Options need an Encode, and an Out or a Stdout")
	}
	if o.Jobs <= 0 {
		o.Jobs = DefaultJobs
	}
	if o.PerServer <= 0 {
		o.PerServer = DefaultPerServer
	}
	if o.Shard.N == 0 {
		o.Shard = Whole
	}
	return nil
}

// open is the run's output: Stdout, or Out created, or Out resumed, when
// it holds records of this run's input and shard.
func (o *Options) open(digest string) (*Output, error) {
	if o.Out == "" {
		return NewOutput(o.Stdout), nil
	}
	out, prior, err := CreateOutput(o.Out, o.Resume)
	if err != nil {
		return nil, &WriteError{What: "-o " + o.Out, Err: err}
	}
	if prior == nil {
		return out, nil
	}
	if err := prior.matches(o.Out, digest, o.Shard); err != nil {
		out.Close()
		return nil, err
	}
	if prior.Truncated > 0 && o.Notice != nil {
		o.Notice(fmt.Sprintf("%s ended in a partial line (%d bytes, the record being written when the run stopped); cut away, and that server is probed again", o.Out, prior.Truncated))
	}
	o.skip = func(id string) bool { return prior.IDs[id] }
	return out, nil
}

func (o Options) run(ctx context.Context, digest string) (*Result, error) {
	o.analysing = make(chan struct{}, min(o.Jobs, runtime.GOMAXPROCS(0)))
	o.shadow = &shadowing{configs: map[string][]budget.ServerTools{}}
	res := &Result{Digest: digest}
	if o.Progress != nil {
		// The input is read twice, the first time for its size only: an
		// ETA costs a parse of each entry, not a list of them.
		_ = Read(o.Inputs, func(e Entry) error {
			if o.Shard.Has(e.ID) && (o.skip == nil || !o.skip(e.ID)) {
				res.Total++
			}
			return ctx.Err()
		})
	}
	var mu sync.Mutex // guards res.Counts and Progress calls
	report := func(f func(*Tally)) {
		mu.Lock()
		defer mu.Unlock()
		f(&res.Tally)
		if o.Progress != nil {
			o.Progress(res.Tally)
		}
	}
	jobs := make(chan Entry) // unbuffered: the reader is never ahead of a free worker by more than one entry
	var emitErr atomic.Pointer[error]
	var wg sync.WaitGroup
	for range o.Jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for e := range jobs {
				report(func(c *Tally) { c.InFlight++ })
				rec := o.probe(ctx, digest, e)
				if rec == nil { // interrupted: not written, so resumed
					report(func(c *Tally) { c.InFlight-- })
					continue
				}
				if err := o.emit(rec); err != nil {
					emitErr.CompareAndSwap(nil, &err)
				}
				report(func(c *Tally) {
					c.InFlight--
					c.Done++
					if rec.Failure != nil {
						c.Failed++
					}
				})
			}
		}()
	}
	seen := map[string]bool{}
	stop := errors.New("stop")
	readErr := Read(o.Inputs, func(e Entry) error {
		if ctx.Err() != nil || emitErr.Load() != nil {
			return stop
		}
		if seen[e.ID] {
			report(func(c *Tally) { c.Dup++ })
			if len(res.Duplicates) < 10 {
				res.Duplicates = append(res.Duplicates, e.ID)
			}
			return nil
		}
		seen[e.ID] = true
		switch {
		case !o.Shard.Has(e.ID):
			report(func(c *Tally) { c.OtherShard++ })
			return nil
		case o.skip != nil && o.skip(e.ID):
			report(func(c *Tally) { c.Skipped++ })
			return nil
		}
		report(func(c *Tally) { c.Read++ })
		select {
		case jobs <- e:
			return nil
		case <-ctx.Done():
			return stop
		}
	})
	close(jobs)
	wg.Wait()
	if p := emitErr.Load(); p != nil {
		return res, &WriteError{What: "the output", Err: *p}
	}
	if readErr != nil && !errors.Is(readErr, stop) {
		return res, readErr
	}
	if ctx.Err() != nil {
		return res, ErrInterrupted
	}
	res.Shadowing = o.shadow.findings()
	return res, nil
}

// probe makes one entry's record; nil when the run was interrupted while
// it was in flight, so that it is not written as a failure of its own.
func (o Options) probe(ctx context.Context, digest string, e Entry) *Record {
	rec := &Record{ID: e.ID, Source: e.Source, Digest: digest, Started: time.Now(), Target: e.Target.Display(), Secrets: e.Target.Secrets}
	if o.Shard.N > 1 {
		s := o.Shard
		rec.Shard = &s
	}
	defer func() { rec.Elapsed = time.Since(rec.Started) }()
	fail := func(cause, what, try string) *Record {
		rec.Failure = &Failure{Cause: cause, What: what, Received: "nothing: the entry was not started", Try: try}
		return rec
	}
	if e.Cause != "" {
		try := "fix the entry"
		if e.Cause == CauseMissingValue {
			try = "give the value in the entry (env, arguments or headers), or set the variable the host config names"
		}
		return fail(e.Cause, e.Err, try)
	}
	t := e.Target
	if len(o.Sandbox) > 0 {
		if t.Kind != "stdio" {
			return fail(CauseRefused, "--sandbox wraps commands, and this entry is a URL", "survey URL entries without --sandbox, or in a run of their own")
		}
		t.Args = append(append(append([]string{}, o.Sandbox[1:]...), t.Command), t.Args...)
		t.Command = o.Sandbox[0]
		rec.Target = t.Display()
	}
	if t.Kind == "stdio" {
		dir, err := os.MkdirTemp(o.Scratch, "mcpprobe-survey-")
		if err != nil {
			return fail(CauseSpawn, "could not make the server's private HOME: "+err.Error(), "check the scratch folder (TMPDIR)")
		}
		defer os.RemoveAll(dir)
		t.BaseEnv, t.Marker = isolatedBase(t.Env, dir)
	}
	pctx, cancel := context.WithTimeout(ctx, o.PerServer)
	defer cancel()
	spec := dial.Spec{Target: t, Launch: o.Launch, Probe: o.Probe}
	spec.Launch.Trace, spec.Launch.Record = nil, nil
	w, err := wire.Run(pctx, wire.Options{Spec: spec})
	if ctx.Err() != nil {
		return nil
	}
	if w != nil {
		rec.Wire = summarizeWire(w.Capture)
		rec.Protocol = w.Capture.ProtocolVersion
	}
	if err != nil {
		rec.Failure = failureOf(err, causeOf(err, pctx.Err() != nil))
		if rec.Failure.Cause == CauseTimedOut {
			rec.Failure.What = fmt.Sprintf("the probe passed the per-server bound of %v (--per-server-timeout): %s", o.PerServer, rec.Failure.What)
			rec.Failure.Try = "raise --per-server-timeout if the server is slow to list; probe it alone (mcpprobe wire) with --trace FILE to see where it waits"
		}
		if w != nil {
			rec.setFindings(w.Capture.Findings)
		}
		return rec
	}
	var b *budget.Result
	select {
	case o.analysing <- struct{}{}:
		b, err = budget.AnalyseFiltered(pctx, w.Capture, o.Hosts, nil, e.Filter)
		<-o.analysing
	case <-pctx.Done():
		err = pctx.Err()
	}
	if ctx.Err() != nil {
		return nil
	}
	if err != nil {
		rec.Failure = failureOf(err, causeOf(err, pctx.Err() != nil))
		if rec.Failure.Cause == CauseTimedOut {
			// The wire is done; what ran out of time is counting the
			// tokens of what the server listed ("context deadline
			// exceeded" says none of that).
			t := wire.Totals(w.Capture.Tools)
			rec.Failure.What = fmt.Sprintf("the probe passed the per-server bound of %v (--per-server-timeout) before the tokens of the %d bytes of tools/list the server sent were counted", o.PerServer, t.Bytes)
			rec.Failure.Received = fmt.Sprintf("%d tools in %d pages", len(w.Capture.Tools.Items), t.Pages)
			rec.Failure.Try = "raise --per-server-timeout, or lower --max-bytes to stop such a server sooner; the wire section of this record has what it sent"
		}
		rec.setFindings(w.Capture.Findings)
		return rec
	}
	rec.Budget = summarizeBudget(b)
	o.shadow.add(e, w.Capture)
	all := b.Findings()
	all = append(all, o.extras(pctx, spec, rec)...)
	if ctx.Err() != nil {
		return nil
	}
	rec.setFindings(all)
	return rec
}

// extras runs the --with sections on fresh servers of the same target.
func (o Options) extras(ctx context.Context, spec dial.Spec, rec *Record) []findings.Finding {
	var out []findings.Finding
	note := func(name string, err error) {
		if rec.WithErrors == nil {
			rec.WithErrors = map[string]string{}
		}
		rec.WithErrors[name] = err.Error()
	}
	for _, w := range o.With {
		switch w {
		case WithBench:
			r, err := bench.Run(ctx, bench.Options{Spec: spec, Startup: 5, N: 100, Warmup: 10, Concurrency: 1, AutoCalls: true, Hosts: o.Hosts})
			if err != nil {
				note(w, err)
				continue
			}
			rec.Bench = r
			out = append(out, r.Findings()...)
		case WithFaults:
			r, err := faults.Scenarios(ctx, faults.ScenarioOptions{Spec: spec})
			if errors.Is(err, faults.ErrNoCall) {
				rec.FaultsNot = "the server annotates no tool read-only, and a survey calls no other"
				continue
			}
			if err != nil {
				note(w, err)
				continue
			}
			rec.Faults = r
			out = append(out, r.Findings()...)
		case WithMalformed:
			r, err := malformed.Run(ctx, malformed.Options{Spec: spec})
			if err != nil {
				note(w, err)
				continue
			}
			rec.Malformed = r
			out = append(out, r.Findings()...)
		}
	}
	return out
}

// isolatedBase is what a server's environment holds besides its entry's
// variables: PATH, HOME and TMPDIR where the entry gives none (HOME and
// TMPDIR private, under dir, removed after the server). On Windows the
// few variables a process cannot start without come along. The marker
// is the private TMPDIR (or HOME), which no other server has: launch
// finds the server's escaped processes by it.
func isolatedBase(env []string, dir string) (base []string, marker string) {
	has := map[string]bool{}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		has[strings.ToUpper(k)] = true
	}
	out := []string{}
	add := func(k, v string) {
		if !has[strings.ToUpper(k)] {
			out = append(out, k+"="+v)
			has[strings.ToUpper(k)] = true
		}
	}
	home, tmp := filepath.Join(dir, "home"), filepath.Join(dir, "tmp")
	_ = os.Mkdir(home, 0o700)
	_ = os.Mkdir(tmp, 0o700)
	add("PATH", os.Getenv("PATH"))
	if !has["HOME"] {
		marker = "HOME=" + home
	}
	if !has["TMPDIR"] {
		marker = "TMPDIR=" + tmp
	}
	add("HOME", home)
	add("TMPDIR", tmp)
	if runtime.GOOS == "windows" {
		add("USERPROFILE", home)
		add("TEMP", tmp)
		add("TMP", tmp)
		for _, k := range []string{"SystemRoot", "ComSpec", "PATHEXT"} {
			if v := os.Getenv(k); v != "" {
				add(k, v)
			}
		}
	}
	return out, marker
}

// Describe is a one-line account of a run, for stderr.
func (r *Result) Describe() string {
	s := fmt.Sprintf("%d servers probed, %d failed", r.Done, r.Failed)
	if r.Skipped > 0 {
		s += fmt.Sprintf(", %d already in the output (--resume)", r.Skipped)
	}
	if r.OtherShard > 0 {
		s += fmt.Sprintf(", %d in other shards", r.OtherShard)
	}
	if r.Dup > 0 {
		s += fmt.Sprintf(", %d duplicate ids left out (%s)", r.Dup, strings.Join(r.Duplicates, ", "))
	}
	return s
}
