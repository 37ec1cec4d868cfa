package main

// Every file mcpprobe writes goes through here: --out (snapshot -o
// included), wire --save, --trace, and stdout itself. An output path that
// is an input of the run (--ref, --hosts, --config, a reference file or
// the server's own files named as arguments) or another output is refused
// before anything runs; a result is written whole or not at all; and a
// write that fails is exit 4, with its own message, whichever output it
// was.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/urfave/cli/v3"
)

// exitWrite is the exit code of a run that could not write an output it
// was asked for (documented in the README with the others).
const exitWrite = 4

// outputState is what a run remembers of its outputs: the writes that
// failed, which make its exit code.
type outputState struct {
	mu     sync.Mutex
	failed []string
}

// fail records that an output could not be written.
func (o *outputState) fail(what string, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.failed = append(o.failed, fmt.Sprintf("writing %s failed: %v", what, err))
}

// writeFailed is the error a command returns when an output it writes
// itself (--out, --save, stdout) failed: exit 4.
func (rs *runState) writeFailed(cmd *cli.Command, what string, err error) error {
	(&rs.outputs).fail(what, err)
	return &exitError{code: exitWrite}
}

// exitCode is the run's exit code once its outputs are counted: a failed
// write turns a success (0) or a tripped gate (1) into 4, since what the
// run found is lost in part or whole; a usage error, a server that could
// not be probed or a proxied server's own code keeps its code. Each
// failure is said on stderr, once.
func (rs *runState) exitCode(code int) int {
	o, stderr, proxy := &rs.outputs, rs.errw, rs.running() == "proxy"
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.failed) == 0 {
		return code
	}
	for _, f := range o.failed {
		fmt.Fprintf(stderr, "mcpprobe: %s\n", rs.safe(f))
	}
	fmt.Fprintln(stderr, "Try: a path on a file system with room, that you may write to; the run's results were not all written.")
	if code == exitOK || (code == exitGate && !proxy) {
		return exitWrite
	}
	return code
}

// checkPaths refuses, before anything runs, an output path that names an
// input of the run or another output: --out over the --ref it is compared
// with, or over the --trace, is a file silently lost.
func checkPaths(args []string, cmd *cli.Command) error {
	outs, ins := runPaths(args, cmd)
	for i, o := range outs {
		for _, in := range ins {
			if samePath(o.path, in.path) {
				return usageErr("%s %s is also %s, an input of this run: writing it would destroy what is read; give %s another path", o.flag, o.path, in.flag, o.flag)
			}
		}
		for _, other := range outs[i+1:] {
			if samePath(o.path, other.path) {
				return usageErr("%s and %s are the same path, %s: one would overwrite the other; give each its own", o.flag, other.flag, o.path)
			}
		}
	}
	return nil
}

// namedPath is a path and what named it: a flag, or "the argument".
type namedPath struct{ flag, path string }

// runPaths are the files the run writes (--out, --trace, --save) and
// those it reads (--ref, --hosts, --config, and a word of the target that
// names a file: a reference file compared with, the server's program,
// its script, its data).
func runPaths(args []string, cmd *cli.Command) (outs, ins []namedPath) {
	for _, f := range []string{"out", "trace", "save"} {
		if p := cmd.String(f); p != "" && p != "-" && cmd.IsSet(f) {
			outs = append(outs, namedPath{"--" + f, p})
		}
	}
	for _, f := range []string{"ref", "hosts", "config"} {
		if p := cmd.String(f); p != "" && cmd.IsSet(f) {
			ins = append(ins, namedPath{"--" + f, p})
		}
	}
	for _, a := range args {
		if _, err := os.Stat(a); err == nil && !strings.HasPrefix(a, "-") {
			ins = append(ins, namedPath{"the argument", a})
		}
	}
	return outs, ins
}

// samePath reports whether two paths name one file: the same path once
// made absolute, or, when both exist, the same file by another name (a
// link, a symlink).
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == bb {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// writeOutput writes b to path whole: into a new file beside it, then
// renamed over it, so that a reader (or the next run's --ref) sees the old
// file or the new one, never half of one, and a failed write leaves the
// old one as it was. A path that is not a regular file (a device such as
// /dev/stdout, a pipe) is written in place, as it must be.
func writeOutput(path string, b []byte) error {
	return writeOutputWith(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// writeOutputWith is writeOutput for output written as it is made (survey
// merge streams its parts): write's error, or a failed write, leaves the
// old file as it was and is returned as it came.
func writeOutputWith(path string, write func(io.Writer) error) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // a symlink stays a symlink, to a new file
	}
	st, err := os.Stat(path)
	switch {
	case err == nil && !st.Mode().IsRegular():
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		err = write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	return writeReplacing(path, write, (*os.File).Sync)
}

// writeReplacing writes a regular file (or a new one) at path through a
// new file beside it, made durable by sync, then renamed over it.
func writeReplacing(path string, write func(io.Writer) error, sync func(*os.File) error) error {
	st, err := os.Stat(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	tmp, f, err := createBeside(path)
	if err != nil {
		return err
	}
	if st != nil {
		// The new file keeps the old one's permissions.
		_ = f.Chmod(st.Mode().Perm())
	}
	err = write(f)
	if err == nil {
		err = sync(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// createBeside creates a new, hidden file in path's folder, with the mode
// a new file gets (0644 less the umask).
func createBeside(path string) (string, *os.File, error) {
	dir, base := filepath.Split(path)
	for try := 0; ; try++ {
		tmp := filepath.Join(dir, "."+base+".tmp-"+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil || !errors.Is(err, fs.ErrExist) || try == 10 {
			return tmp, f, err
		}
	}
}

// openStream opens --trace: written as the run goes, not renamed at its
// end, so that a crash or a kill loses nothing and `tail -f` follows it.
func openStream(path string) (*os.File, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return os.OpenFile(path, os.O_WRONLY, 0)
	}
	return os.Create(path)
}

// failureOf is the failure an exit-3 error carries in parts, or nil.
func failureOf(err error) *jsonout.Failure {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.fail
	}
	return nil
}

// interruptedFailure is the error member of an interrupted run.
func (rs *runState) interruptedFailure(signal, received string) *jsonout.Failure {
	code := exitInterrupted
	for _, st := range stopSignals() {
		if st.name == signal {
			code = st.code
		}
	}
	what := "interrupted by " + signal
	if cmd := rs.running(); cmd != "" {
		what += " during " + cmd
	}
	return &jsonout.Failure{ExitCode: code, What: what, Received: received,
		Try: "run it again and let it finish: every wait is bounded (--startup-timeout, --timeout)"}
}

// failureEnvelope prints the envelope of a --json run that ends without
// having printed one (exit 3 before any capture, 4 before the output,
// an interrupt before the result), with fail as its error member and the
// section null: whatever reads the output gets JSON on every exit but a
// usage error's. It reports whether it printed.
func (rs *runState) failureEnvelope(fail *jsonout.Failure) bool {
	cmd := rs.intr.leaf.Load()
	if cmd == nil || fail == nil || !cmd.Bool("json") || !rs.intr.printing.CompareAndSwap(false, true) {
		return false
	}
	target, _ := rs.intr.target.Load().(string)
	if target == "" {
		target = shellJoin(append(cmd.Args().Slice(), rs.tail...))
	}
	env := jsonout.Envelope{Version: rs.version, Command: cmd.Name, Target: target,
		Findings: findings.Sorted(rs.launched.Findings()), Gates: splitList(cmd.StringSlice("fail-on")), Error: fail}
	b := env.JSON(nil)
	if fail.Redacted && bytes.HasSuffix(b, []byte("}\n")) {
		b = append(b[:len(b)-2:len(b)-2], ",\"redacted\":true}\n"...)
	}
	return rs.write(cmd, cmd.Root().Writer, nil, b) == nil
}

// runFailure is the error member for a run that ends with code: the
// parts of an exit-3 message, or the writes that failed.
func (rs *runState) runFailure(err error, code int) *jsonout.Failure {
	if f := failureOf(err); f != nil {
		return f
	}
	switch code {
	case exitOK, exitGate, exitUsage:
		return nil
	case exitWrite:
		o := &rs.outputs
		o.mu.Lock()
		defer o.mu.Unlock()
		return &jsonout.Failure{ExitCode: code, What: strings.Join(o.failed, "; "),
			Received: "the run's results, not all of them written",
			Try:      "a path on a file system with room, that you may write to"}
	}
	what := "the run failed"
	if err != nil {
		what = err.Error()
	}
	return &jsonout.Failure{ExitCode: code, What: what, Received: "nothing more than the line above says", Try: "run it again with --trace FILE to record every frame"}
}
