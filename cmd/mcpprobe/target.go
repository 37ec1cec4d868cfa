package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/bench"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/urfave/cli/v3"
	"golang.org/x/term"
)

func globalFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "json", Usage: "print one JSON object instead of text"},
		&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the output to `FILE` instead of stdout"},
		&cli.DurationFlag{Name: "timeout", Value: 10 * time.Second, Usage: "bound on each request after the handshake"},
		&cli.DurationFlag{Name: "startup-timeout", Value: 30 * time.Second, Usage: "bound on the server starting and answering its handshake"},
		&cli.DurationFlag{Name: "discover-timeout", Value: 3 * time.Second, Usage: "how long server/discover may stay unanswered before the server is taken to be legacy"},
		&cli.StringFlag{Name: "protocol", Value: "auto", Usage: "`VERSION` to pin (e.g. 2025-06-18), or auto to detect the era and negotiate"},
		&cli.StringSliceFlag{Name: "env", Aliases: []string{"e"}, Usage: "`KEY=VALUE` for the server's environment (repeatable); values are never shown"},
		&cli.StringSliceFlag{Name: "header", Aliases: []string{"H"}, Usage: "`'Name: value'` HTTP header (repeatable); values are never shown"},
		&cli.StringSliceFlag{Name: "header-env", Usage: "`Name=VAR`: send header Name with the value of environment variable VAR (repeatable)"},
		&cli.StringFlag{Name: "transport", Value: "auto", Usage: "for URLs: auto (Streamable HTTP, falling back to legacy SSE), streamable or sse"},
		&cli.BoolFlag{Name: "insecure", Usage: "for https URLs: do not verify the TLS certificate"},
		&cli.StringFlag{Name: "config", Usage: "host config `FILE` (.mcp.json, claude_desktop_config.json, .vscode/mcp.json); the target is then a server NAME in it"},
		&cli.StringFlag{Name: "trace", Usage: "write every frame to `FILE` as JSON lines, as it happens"},
		&cli.IntFlag{Name: "max-line", Value: transport.DefaultMaxLine, Usage: "bound on one stdout line, in bytes"},
		&cli.IntFlag{Name: "max-pages", Value: 1000, Usage: "bound on the pages of one list"},
		&cli.DurationFlag{Name: "grace", Value: 2 * time.Second, Usage: "time the server gets to exit after stdin closes, and again after SIGTERM"},
		&cli.StringSliceFlag{Name: "fail-on", Usage: "exit 1 when a `GATE` trips: error, warning or info (a finding at that severity or above); budget and report also take cut, schema-drop, lint-error, lint-warning"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on stderr"},
		&cli.BoolFlag{Name: "no-color", Usage: "no colour (NO_COLOR is honoured too)"},
	}
}

// session is one probe run as the user asked for it.
type session struct {
	target  launch.Target
	redact  *transport.Redactor
	capture *probe.Capture
	stdout  io.Writer
	stderr  io.Writer
}

// known holds every secret any target of this run was given: whatever
// is printed or written, by any command, is redacted with all of them.
var known struct {
	mu      sync.Mutex
	secrets []string
}

func addSecrets(v []string) {
	known.mu.Lock()
	known.secrets = append(known.secrets, v...)
	known.mu.Unlock()
}

// redactor hides every secret known so far.
func redactor() *transport.Redactor {
	known.mu.Lock()
	defer known.mu.Unlock()
	return transport.NewRedactor(known.secrets)
}

// targetArgs are the target's words: the positional arguments, then
// whatever followed "--".
func targetArgs(ctx context.Context, cmd *cli.Command) []string {
	tail, _ := afterDashes(ctx)
	return append(cmd.Args().Slice(), tail...)
}

// resolveTarget reads the target from --config or the arguments.
func resolveTarget(cmd *cli.Command, args []string) (launch.Target, error) {
	var t launch.Target
	var err error
	if cfg := cmd.String("config"); cfg != "" {
		if len(args) != 1 {
			return t, usageErr("--config %s needs exactly one server name after it, got %d arguments", cfg, len(args))
		}
		t, err = launch.FromConfig(cfg, args[0], os.LookupEnv)
		if err != nil {
			return t, usageErr("%v", err)
		}
	} else {
		t, err = launch.FromArgs(args)
		if err != nil {
			return t, usageErr("%v", err)
		}
	}
	if err := t.WithEnv(cmd.StringSlice("env")); err != nil {
		return t, usageErr("%v", err)
	}
	for _, he := range cmd.StringSlice("header-env") {
		name, envVar, ok := strings.Cut(he, "=")
		if !ok || name == "" || envVar == "" {
			return t, usageErr("--header-env %q: want Name=VAR", he)
		}
		v, set := os.LookupEnv(envVar)
		if !set {
			return t, usageErr("--header-env %s: environment variable %s is not set", name, envVar)
		}
		t.Headers = append(t.Headers, name+": "+v)
		t.Secrets = append(t.Secrets, v)
	}
	for _, h := range cmd.StringSlice("header") {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return t, usageErr("--header %q: want 'Name: value'", h)
		}
		t.Headers = append(t.Headers, strings.TrimSpace(name)+": "+strings.TrimSpace(value))
		t.Secrets = append(t.Secrets, strings.TrimSpace(value))
	}
	addSecrets(t.Secrets)
	return t, nil
}

// probeTarget runs the probe as the flags say and returns the capture. A
// target that cannot be probed is exit code 3, with the capture (if any)
// still returned for the trace.
func probeTarget(ctx context.Context, cmd *cli.Command, stderr io.Writer) (*session, error) {
	return probeArgs(ctx, cmd, stderr, targetArgs(ctx, cmd))
}

// probeArgs probes the target named by args (or --config).
func probeArgs(ctx context.Context, cmd *cli.Command, stderr io.Writer, args []string) (*session, error) {
	spec, err := specFromFlags(cmd, args)
	if err != nil {
		return nil, err
	}
	t := spec.Target
	s := &session{target: t, redact: transport.NewRedactor(t.Secrets), stderr: stderr}
	trace := transport.NewTrace(time.Now())
	if path := cmd.String("trace"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return nil, usageErr("--trace: %v", err)
		}
		defer f.Close()
		_ = trace.Stream(f, s.redact.Bytes)
	}
	progress := !cmd.Bool("quiet") && isTerminal(stderr)
	if progress {
		fmt.Fprintf(stderr, "probing %s …\r", reports.Escape(s.redact.String(t.Display())))
	}
	po := spec.Probe
	po.RecheckTools = true
	lo := spec.Launch
	lo.Trace = trace
	c, err := launch.Probe(ctx, t, lo, po)
	if progress {
		fmt.Fprint(stderr, "\x1b[2K\r")
	}
	s.capture = c
	if terr := trace.Err(); terr != nil {
		fmt.Fprintf(stderr, "mcpprobe: writing the trace failed: %v\n", terr)
	}
	if err != nil {
		return s, cannotProbe(err, s.redact)
	}
	return s, nil
}

// launchOptions are how the global flags say to start a target.
func launchOptions(cmd *cli.Command) launch.Options {
	return launch.Options{
		Grace: cmd.Duration("grace"), MaxLine: int(cmd.Int("max-line")),
		Mode: cmd.String("transport"), Insecure: cmd.Bool("insecure"),
		Timeout: cmd.Duration("timeout"), UserAgent: "mcpprobe/" + version,
	}
}

// cannotProbe is exit code 3 with the failure's three parts, what
// happened, what was received (each line escaped: it is the server's
// text) and what to try, and every secret hidden.
func cannotProbe(err error, redact *transport.Redactor) error {
	var fe *probe.FatalError
	msg := err.Error()
	if errors.As(err, &fe) {
		msg = fe.What
		if fe.Received != "" {
			lines := strings.Split(fe.Received, "\n")
			for i, l := range lines {
				lines[i] = reports.Escape(strings.TrimLeft(l, " "))
			}
			msg += "\nReceived: " + strings.Join(lines, "\n  ")
		}
		if fe.Try != "" {
			msg += "\nTry: " + fe.Try
		}
	}
	if redact == nil {
		redact = redactor()
	}
	return &exitError{code: exitNoTarget, msg: redact.String(msg)}
}

// write sends the output where --out says, with every secret of the run
// hidden.
func write(cmd *cli.Command, stdout io.Writer, _ *transport.Redactor, b []byte) error {
	b, _ = redactor().Bytes(b)
	if path := cmd.String("out"); path != "" && path != "-" {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return &exitError{code: exitUsage, msg: fmt.Sprintf("--out: %v", err)}
		}
		return nil
	}
	_, err := stdout.Write(b)
	return err
}

// gates is a command's Before: it refuses a --fail-on gate the command
// cannot trip, rather than ignore it and pass.
func gates(extra ...string) cli.BeforeFunc {
	return func(ctx context.Context, cmd *cli.Command) (context.Context, error) {
		if err := findings.CheckGates(cmd.Name, splitList(cmd.StringSlice("fail-on")), extra...); err != nil {
			return ctx, usageErr("%s", err)
		}
		return ctx, nil
	}
}

// noGates is the Before of commands that gate on nothing.
func noGates(ctx context.Context, cmd *cli.Command) (context.Context, error) {
	if g := splitList(cmd.StringSlice("fail-on")); len(g) > 0 {
		return ctx, usageErr("--fail-on does not apply to %s; wire, budget, report, diff and faults take it", cmd.Name)
	}
	return ctx, nil
}

// gate applies --fail-on to a command's findings and to counts, for the
// gates that are not findings (drift); a tripped gate exits 1.
func gate(cmd *cli.Command, fs []probe.Finding, counts map[string]int) error {
	if t := findings.Trip(splitList(cmd.StringSlice("fail-on")), fs, counts); len(t) > 0 {
		return &exitError{code: exitGate, msg: "--fail-on tripped: " + findings.Describe(t)}
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
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// probeOptions are the client options the global flags set.
func probeOptions(cmd *cli.Command) probe.Options {
	return probe.Options{Protocol: cmd.String("protocol"), Timeout: cmd.Duration("timeout"),
		StartupTimeout: cmd.Duration("startup-timeout"), DiscoverTimeout: cmd.Duration("discover-timeout"), ClientVersion: version}
}

// callsFromFlags reads --call (repeatable) and --args; a call without
// --args gets minimal valid arguments later.
func callsFromFlags(cmd *cli.Command) ([]bench.Call, error) {
	var calls []bench.Call
	for _, name := range cmd.StringSlice("call") {
		c := bench.Call{Tool: name}
		if a := cmd.String("args"); a != "" {
			if !jsonObject(a) {
				return nil, usageErr("--args %q is not a JSON object", a)
			}
			c.Args = []byte(a)
		}
		calls = append(calls, c)
	}
	return calls, nil
}
