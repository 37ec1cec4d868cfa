package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/probe/wire"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/urfave/cli/v3"
	"golang.org/x/term"
)

// targetArgs are the target's words: the positional arguments, then
// whatever followed "--".
func (rs *runState) targetArgs(cmd *cli.Command) []string {
	tail, _ := rs.afterDashes()
	return append(cmd.Args().Slice(), tail...)
}

// resolveTarget reads the target from --config or the arguments, with the
// flags that add to it (launch.Resolve), and makes its secrets the run's.
func (rs *runState) resolveTarget(cmd *cli.Command, args []string) (launch.Target, error) {
	cfg := cmd.String("config")
	if cfg == "" {
		if err := quotedCommand(cmd.Name, args); err != nil {
			return launch.Target{}, err
		}
	}
	t, err := launch.Resolve(launch.Asked{Config: cfg, Words: args,
		Env: cmd.StringSlice("env"), SecretEnv: cmd.StringSlice("secret-env"), InheritEnv: cmd.Bool("inherit-env"),
		HeaderEnv: cmd.StringSlice("header-env"), Headers: cmd.StringSlice("header"),
		LookupEnv: rs.lookupEnv, Environ: rs.environ})
	var ce *launch.ConfigError
	switch {
	case errors.As(err, &ce):
		return t, configErr(ce.Path, ce.Err)
	case err != nil:
		return t, usageErr("%v", err)
	}
	rs.secrets.add(t.Secrets)
	return t, nil
}

// wireOptions are the options every command that probes a server starts
// from: the target named by args (or --config) and the global flags, a
// trace from tf, and the progress line.
func (rs *runState) wireOptions(cmd *cli.Command, args []string, tf *traceFile) (wire.Options, error) {
	spec, err := rs.specFromFlags(cmd, args)
	if err != nil {
		return wire.Options{}, err
	}
	spec.Launch.Trace = tf.next()
	return wire.Options{Spec: spec, Progress: rs.progressLine(cmd)}, nil
}

// traceFile is --trace FILE, opened once per run. Every server the run
// starts gets a trace of its own (a session's findings read its own
// frames), streamed into the file as it happens with every known secret
// hidden. A command that starts one server (wire, budget, snapshot) writes
// plain lines; one that may start several (diff, report, bench, faults,
// malformed) numbers every line with its connection ("conn":N), from 1 in
// start order, through one transport.Recorder.
type traceFile struct {
	f        *os.File
	path     string
	outs     *outputState // where a failed write is told
	redact   func() *transport.Redactor
	numbered bool
	rec      *transport.Recorder
	traces   []*transport.Trace
	stderr   io.Writer
}

// openTrace opens --trace for a command that starts one server.
func (rs *runState) openTrace(cmd *cli.Command) (*traceFile, error) {
	tf := &traceFile{stderr: cmd.Root().ErrWriter, outs: &rs.outputs, redact: rs.redactor}
	if path := cmd.String("trace"); path != "" {
		f, err := openStream(path)
		if err != nil {
			// Nothing has run: a path that cannot be opened is a bad
			// value, as --out's missing folder is.
			return nil, usageErr("--trace %s: %v", path, err)
		}
		tf.f, tf.path = f, path
	}
	return tf, nil
}

// openTraces opens --trace for a command that may start several servers.
func (rs *runState) openTraces(cmd *cli.Command) (*traceFile, error) {
	tf, err := rs.openTrace(cmd)
	if tf != nil {
		tf.numbered = true
	}
	return tf, err
}

// next is a fresh trace writing to the file, or nil without --trace (the
// launcher then keeps one in memory). Its times count from now: call it
// once the targets are resolved, just before the run.
func (tf *traceFile) next() *transport.Trace {
	if tf.f == nil {
		return nil
	}
	if tf.numbered {
		return tf.recorder().Trace(time.Now())
	}
	t := transport.NewTrace(time.Now())
	// Asked again for every line: a secret the run learns later (an
	// OAuth token) is hidden too.
	_ = t.Stream(tf.f, func(b []byte) ([]byte, bool) { return tf.redact().Bytes(b) })
	tf.traces = append(tf.traces, t)
	return t
}

// recorder numbers the connections of a command that starts several
// servers; set it as launch.Options.Record and each Start takes the next
// number. nil without --trace. Call it once every target is resolved, so
// that every secret is known to the redaction.
func (tf *traceFile) recorder() *transport.Recorder {
	if tf.f == nil {
		return nil
	}
	if tf.rec == nil {
		tf.rec = transport.NewRecorder(tf.f, func(b []byte) ([]byte, bool) { return tf.redact().Bytes(b) })
	}
	return tf.rec
}

// close closes the file. A trace that could not be written (a full disk,
// /dev/full) does not stop the run, whose results are still printed, but
// the run then exits 4, saying so.
func (tf *traceFile) close() {
	if tf.f == nil {
		return
	}
	err := error(nil)
	if tf.rec != nil {
		err = tf.rec.Err()
	}
	for _, t := range tf.traces {
		if err == nil {
			err = t.Err()
		}
	}
	if cerr := tf.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		tf.outs.fail("--trace "+tf.path, err)
	}
	tf.f = nil // closed once, said once
}

// progressLine says which target is being started on the progress line;
// nil when there is no line.
func (rs *runState) progressLine(cmd *cli.Command) func(string) {
	st := rs.statusFor(cmd)
	if !st.On() {
		return nil
	}
	return func(target string) {
		if target != "" {
			st.Step("starting " + terminal.Escape(rs.redactor().String(target)))
		}
	}
}

// launchOptions are how the global flags say to start a target, and
// where the launcher's findings of this run go.
func (rs *runState) launchOptions(cmd *cli.Command) launch.Options {
	maxBytes := cmd.Int("max-bytes")
	if maxBytes == 0 {
		maxBytes = -1 // no bound
	}
	return launch.Options{
		Grace: cmd.Duration("grace"), MaxLine: int(cmd.Int("max-line")), MaxBytes: int64(maxBytes),
		Mode: cmd.String("transport"), Insecure: cmd.Bool("insecure"),
		Timeout: cmd.Duration("timeout"), UserAgent: "mcpprobe/" + version,
		Run: rs.launched,
	}
}

// cannotProbe is exit code 3 with the failure's three parts, what
// happened, what was received (each line escaped: it is the server's
// text) and what to try, and every secret hidden.
func (rs *runState) cannotProbe(err error, redact *transport.Redactor) error {
	// Every exit-3 message has its three parts, whichever path it came
	// by: an error no launcher explained still says what is known.
	fe := &probe.FatalError{What: err.Error()}
	if !errors.As(err, &fe) {
		fe = &probe.FatalError{What: err.Error()}
	}
	received, try := fe.Received, fe.Try
	if received == "" {
		received = "nothing more than the line above says"
	}
	if try == "" {
		try = "run it again with --trace FILE to record every frame, and look at the last ones"
	}
	lines := strings.Split(received, "\n")
	for i, l := range lines {
		lines[i] = terminal.Escape(strings.TrimLeft(l, " "))
	}
	msg := fe.What + "\nReceived: " + strings.Join(lines, "\n  ") + "\nTry: " + try
	if redact == nil {
		redact = rs.redactor()
	}
	what, whatHid := redact.Bytes([]byte(fe.What))
	recv, receivedHid := redact.Bytes([]byte(strings.Join(lines, "\n")))
	tried, tryHid := redact.Bytes([]byte(try))
	fail := &jsonout.Failure{ExitCode: exitNoTarget, What: string(what), Received: string(recv), Try: string(tried),
		Redacted: whatHid || receivedHid || tryHid}
	return &exitError{code: exitNoTarget, msg: redact.String(msg), fail: fail}
}

// write sends the output where --out says, with every secret of the run
// hidden.
func (rs *runState) write(cmd *cli.Command, stdout io.Writer, _ *transport.Redactor, b []byte) error {
	b, redacted := rs.redactor().Bytes(b)
	if redacted {
		// Secrets never leave, even where the output would be the
		// server's bytes: the output says it was changed.
		if cmd.Bool("json") && bytes.HasSuffix(b, []byte(`,"redacted":true}`+"\n")) {
			// marked already (a failure's texts, hidden before)
		} else if cmd.Bool("json") && bytes.HasSuffix(b, []byte("}\n")) {
			b = append(b[:len(b)-2:len(b)-2], ",\"redacted\":true}\n"...)
		} else {
			fmt.Fprintln(cmd.Root().ErrWriter, "mcpprobe: the output held a secret of this run (an --env value, a header, a credential in the arguments), in some encoding; it shows *** in its place")
		}
	}
	if path := cmd.String("out"); path != "" && path != "-" {
		if err := writeOutput(path, b); err != nil {
			return rs.writeFailed(cmd, "--out "+path, err)
		}
		// Success says what was written where: stdout is empty, and a
		// silent exit 0 looks the same as a run that wrote nothing.
		if !cmd.Bool("quiet") {
			fmt.Fprintf(cmd.Root().ErrWriter, "mcpprobe: wrote %s (%s bytes)\n", terminal.Escape(path), probe.Comma(int64(len(b))))
		}
		return nil
	}
	if _, err := stdout.Write(b); err != nil {
		return rs.writeFailed(cmd, "the output", err)
	}
	return nil
}

func splitList(v []string) []string {
	var out []string
	for _, s := range v {
		for _, p := range strings.Split(s, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func isTerminal(w io.Writer) bool {
	if r, ok := w.(*redactingWriter); ok {
		w = r.w // stderr, with secrets hidden in what passes
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// probeOptions are the client options the global flags set.
func probeOptions(cmd *cli.Command) probe.Options {
	return probe.Options{Protocol: cmd.String("protocol"), Timeout: cmd.Duration("timeout"),
		StartupTimeout: cmd.Duration("startup-timeout"), DiscoverTimeout: cmd.Duration("discover-timeout"), ClientVersion: version}
}

// configErr is a host config file's problem as one usage line that
// names --config and the file once.
func configErr(path string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return usageErr("--config %s: %v", path, pe.Err)
	}
	msg := strings.TrimPrefix(err.Error(), path+": ")
	msg = strings.TrimPrefix(msg, path+" ")
	return usageErr("--config %s: %s", path, oneLine(msg))
}
