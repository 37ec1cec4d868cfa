package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/call"
	callresult "github.com/mcpprobe/mcpprobe/probe/result"
	"github.com/mcpprobe/mcpprobe/probe/wire"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/urfave/cli/v3"
)

// callKinds are the three one-request commands: the request each makes,
// what its last word names, and whether it takes arguments. A function,
// so that the table cannot be changed.
func callKinds() map[string]callKind {
	return map[string]callKind{
		"call":   {callresult.KindTool, "TOOL", true, "call one tool and show its raw result, what each host delivers of it, and how a long call fares"},
		"read":   {callresult.KindResource, "URI", false, "read one resource (resources/read) and show its raw result and what each host delivers of it"},
		"prompt": {callresult.KindPrompt, "NAME", true, "get one prompt (prompts/get) and show its raw result"},
	}
}

type callKind struct {
	kind  callresult.Kind
	noun  string
	args  bool
	usage string
}

func (rs *runState) callCommand() *cli.Command   { return rs.oneRequestCommand("call") }
func (rs *runState) readCommand() *cli.Command   { return rs.oneRequestCommand("read") }
func (rs *runState) promptCommand() *cli.Command { return rs.oneRequestCommand("prompt") }

func (rs *runState) oneRequestCommand(name string) *cli.Command {
	k := callKinds()[name]
	own := []cli.Flag{}
	if k.args {
		own = append(own,
			&cli.GenericFlag{Name: "args", Value: &repeatedFlag{}, Usage: "the arguments as one JSON `OBJECT` (once)"},
			&cli.GenericFlag{Name: "arg", Value: &repeatedFlag{}, Usage: "`KEY=VALUE` argument (repeatable), typed by the tool's inputSchema: integer, number, boolean, object and array values are read as JSON"},
			&cli.BoolFlag{Name: "no-validate", Usage: "send arguments that do not match the inputSchema (or lack a prompt's required ones) anyway"},
		)
	}
	own = append(own,
		&cli.BoolFlag{Name: "progress", Usage: "send a progressToken and show the notifications/progress timeline"},
		&cli.DurationFlag{Name: "cancel-after", Usage: "cancel the call after `D` (notifications/cancelled; tasks/cancel with --task) and show what the server does"},
		&cli.StringFlag{Name: "elicit", Usage: "answer elicitation/create with `decline|cancel|accept=JSON`; without it, each is accepted with the requested schema's defaults (and built values for required fields without one), as a host's form shows them"},
		&cli.StringFlag{Name: "sampling-reply", Usage: "answer sampling/createMessage with `TEXT` (declares the sampling capability)"},
		&cli.GenericFlag{Name: "root", Value: &repeatedFlag{}, Usage: "answer roots/list with `URI` (repeatable; declares the roots capability)"},
		&cli.GenericFlag{Name: "policy", Value: &repeatedFlag{}, Usage: "a client timeout `POLICY` to judge the call by, such as mine=timeout:30s,reset-on-progress,max-total:2m (repeatable)"},
		&cli.StringFlag{Name: "save", Usage: "write the raw request and response (and a task's exchanges) into `DIR`"},
		&cli.StringFlag{Name: "view", Usage: "print, as markdown, what `HOST` delivers of the result to the model"},
	)
	own = append(own, skillFlags(name)...)
	own = append(own, hostFlags()...)
	if name == "call" {
		own = append(own, &cli.BoolFlag{Name: "task", Usage: "make a task-augmented call (2025-11-25 tasks) and follow it: tasks/get at the server's pollInterval, then tasks/result"})
	}
	bounds := boundFlags()
	if name == "read" {
		bounds = without(bounds, "max-pages") // a resource is one read, never a list
	}
	return &cli.Command{
		Name:   name,
		Before: rs.before,
		Usage:  k.usage,
		Flags:  flags(own, targetFlags(), bounds, outputFlags(), gateFlags(name)),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			target, what, err := rs.splitCallArgs(ctx, cmd, k.noun)
			if err != nil {
				return err
			}
			o, err := callOptions(cmd, k.kind, what)
			if err != nil {
				return err
			}
			if err := checkCallOutput(cmd); err != nil {
				return err
			}
			hc, err := hostChoice(cmd)
			if err != nil {
				return err
			}
			o.Hosts = hc.Each()
			tf, err := rs.openTrace(cmd)
			if err != nil {
				return err
			}
			spec, err := rs.specFromFlags(cmd, target)
			if err != nil {
				tf.close()
				return err
			}
			spec.Launch.Trace = tf.next()
			o.Spec, o.Announce = spec, rs.progressLine(cmd)
			r, err := call.Run(ctx, o)
			tf.close()
			if err != nil {
				return rs.failure(err)
			}
			if dir := cmd.String("save"); dir != "" {
				if err := rs.save(dir, callPages(r), cmd.Root().ErrWriter); err != nil {
					return rs.writeFailed(cmd, "--save "+dir, err)
				}
			}
			return skillRefused(rs.emit(cmd, reports.NewCall(name, r, cmd.String("view"))), r)
		},
	}
}

// skillFlags are read's --skill (SEP-2640: load a skill's file as a host
// does); the other one-request commands have none.
func skillFlags(command string) []cli.Flag {
	if command != "read" {
		return nil
	}
	return []cli.Flag{&cli.BoolFlag{Name: "skill", Usage: "load URI as a host loads a skill's file (SEP-2640): skills/list first, then the read verified against the entry that lists URI (size, sha256 digest, a SKILL.md's frontmatter); a mismatch refuses it, names the file, what differed and the clause, and exits 1"}}
}

// skillRefused is read --skill's exit once the output is written: a
// refused file exits 1, as a host stops there, whatever --fail-on says.
func skillRefused(emitted error, r *call.Result) error {
	if emitted != nil || r.Skill == nil || !r.Skill.Refused() {
		return emitted
	}
	return &exitError{code: exitGate, msg: "--skill: " + r.Skill.File.URI + " refused (" + r.Skill.Differed() + "): it fails verification against skills/list"}
}

// checkCallOutput refuses, before anything starts, an output the command
// could not write: --view of an unknown host or with --json, --save to
// something that is not a folder.
func checkCallOutput(cmd *cli.Command) error {
	if cmd.String("view") != "" && cmd.Bool("json") {
		return usageErr("--view and --json conflict: --view prints one host's delivery as markdown; --json has every host's")
	}
	if dir := cmd.String("save"); cmd.IsSet("save") {
		if st, err := os.Stat(dir); dir == "" || (err == nil && !st.IsDir()) {
			return usageErr("--save %s: want a folder to write the raw bytes into", dir)
		}
	}
	return nil
}

// splitCallArgs separates the target's words from the last word, the
// tool, URI or prompt: `./server TOOL`, `URL TOOL`, `TOOL -- CMD ARGS…`,
// `--config FILE SERVER TOOL`.
func (rs *runState) splitCallArgs(ctx context.Context, cmd *cli.Command, noun string) (target []string, what string, err error) {
	pos := cmd.Args().Slice()
	tail, dashed := rs.afterDashes()
	if len(pos) == 0 {
		return nil, "", usageErr("%s needs a target and a %s: mcpprobe %s ./server %s", cmd.Name, noun, cmd.Name, noun)
	}
	what = pos[len(pos)-1]
	target = pos[:len(pos)-1]
	if dashed {
		if len(target) > 0 {
			return nil, "", usageErr("%s: with a command after --, give only the %s before it (got %q)", cmd.Name, noun, pos)
		}
		target = tail
	}
	if len(target) == 0 {
		return nil, "", usageErr("%s needs a target before the %s %q: a path, a URL, -- CMD ARGS… or --config FILE SERVER", cmd.Name, noun, what)
	}
	if strings.TrimSpace(what) == "" {
		return nil, "", usageErr("%s: the %s is empty", cmd.Name, noun)
	}
	if !dashed && cmd.String("config") == "" && len(target) == 1 && swapped(target[0], what) {
		msg := fmt.Sprintf("%s: %q is not a file or a command, and %q is a file: the target comes first, then the %s: mcpprobe %s %s, or, for a command with arguments, mcpprobe %s %s -- %s ARGS…",
			cmd.Name, target[0], what, noun, cmd.Name, shellJoin([]string{what, target[0]}), cmd.Name, shellJoin(target), shellJoin([]string{what}))
		if isURL(what) {
			msg = fmt.Sprintf("%s: %q is not a file or a command, and %q is a URL: the target comes first, then the %s: mcpprobe %s %s",
				cmd.Name, target[0], what, noun, cmd.Name, shellJoin([]string{what, target[0]}))
		}
		return nil, "", usageErr("%s", msg)
	}
	return target, what, nil
}

// swapped reports whether `call TOOL ./server` was meant: the word in the
// target's place is no file, URL or command on PATH, and the last word,
// where the tool goes, is a file or a URL.
func swapped(target, what string) bool {
	if isURL(target) {
		return false
	}
	if _, err := os.Stat(target); err == nil {
		return false
	}
	if _, err := exec.LookPath(target); err == nil {
		return false
	}
	if isURL(what) {
		return true
	}
	st, err := os.Stat(what)
	return err == nil && !st.IsDir()
}

func isURL(s string) bool {
	scheme, _, ok := strings.Cut(s, "://")
	return ok && (strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https"))
}

// callArgs is --args: one JSON object. Given twice it is refused rather
// than the last one kept, as a flag library would: the call would go out
// with arguments the user did not mean, and nothing would say so.
func callArgs(cmd *cli.Command) ([]byte, error) {
	vals := repeated(cmd, "args")
	switch {
	case len(vals) == 0:
		return nil, nil
	case len(vals) > 1:
		return nil, usageErr("--args is given %d times: a call sends one set of arguments; put them in one JSON object, or give each as --arg KEY=VALUE", len(vals))
	case !jsonObject(vals[0]):
		return nil, usageErr("--args %q is not a JSON object", vals[0])
	}
	return []byte(vals[0]), nil
}

// callOptions maps the command's own flags to call.Options.
func callOptions(cmd *cli.Command, kind callresult.Kind, what string) (call.Options, error) {
	o := call.Options{Kind: kind, Name: what, Progress: cmd.Bool("progress"), NoValidate: cmd.Bool("no-validate"), Task: cmd.Bool("task"), Skill: cmd.Bool("skill")}
	args, err := callArgs(cmd)
	if err != nil {
		return o, err
	}
	o.Args = args
	for _, p := range repeated(cmd, "arg") {
		if k, _, ok := strings.Cut(p, "="); !ok || k == "" {
			return o, usageErr("--arg %q: want KEY=VALUE", p)
		}
		o.Pairs = append(o.Pairs, p)
	}
	if cmd.IsSet("cancel-after") {
		d := cmd.Duration("cancel-after")
		if d <= 0 {
			return o, usageErr("--cancel-after %s: want a duration above 0, such as 2s", d)
		}
		o.CancelAfter = d
	}
	if cmd.IsSet("elicit") {
		action, content, err := call.ParseElicit(cmd.String("elicit"))
		if err != nil {
			return o, usageErr("%v", err)
		}
		o.Replies.Elicit, o.Replies.ElicitContent = action, content
	} else {
		// As input_required is answered without --elicit: a form
		// accepted as a host shows it, pre-filled with its defaults.
		o.Replies.ElicitDefaults = true
	}
	if cmd.IsSet("sampling-reply") {
		s := cmd.String("sampling-reply")
		o.Replies.Sampling = &s
	}
	for _, u := range repeated(cmd, "root") {
		if strings.TrimSpace(u) == "" {
			return o, usageErr("--root needs a URI, such as file:///home/me/project")
		}
		o.Replies.Roots = append(o.Replies.Roots, u)
	}
	for _, p := range repeated(cmd, "policy") {
		pol, err := callresult.ParsePolicy(p)
		if err != nil {
			// ParsePolicy's message names the flag and the value.
			return o, usageErr("%v", err)
		}
		o.Policies = append(o.Policies, pol)
	}
	return o, nil
}

// callPages are the raw bytes --save writes: the request mcpprobe sent,
// the response as received, its result member, and a task's exchanges.
func callPages(r *call.Result) []wire.SavedPage {
	var pages []wire.SavedPage
	if r.Request != nil {
		pages = append(pages, wire.SavedPage{Name: "request.json", Raw: r.Request})
	}
	if r.Task != nil {
		for i, p := range r.Task.Polls {
			if p.Raw != nil {
				pages = append(pages, wire.SavedPage{Name: fmt.Sprintf("task-%02d-%s.json", i+1, strings.ReplaceAll(p.Method, "/", "-")), Raw: p.Raw})
			}
		}
	}
	if r.Response != nil {
		pages = append(pages, wire.SavedPage{Name: "response.json", Raw: r.Response})
	}
	if r.Result != nil {
		pages = append(pages, wire.SavedPage{Name: "result.json", Raw: r.Result})
	}
	return pages
}

// repeatedFlag is a flag given once per value, each kept whole: a
// string slice flag would split "timeout:1s,reset-on-progress" or
// '{"a":1,"b":2}' at its commas.
type repeatedFlag struct{ vals []string }

func (r *repeatedFlag) Set(s string) error { r.vals = append(r.vals, s); return nil }
func (r *repeatedFlag) String() string     { return "" }
func (r *repeatedFlag) Get() any           { return r.vals }

// repeated is the values of a repeatedFlag, in the order given.
func repeated(cmd *cli.Command, name string) []string {
	if r, ok := cmd.Value(name).([]string); ok {
		return r
	}
	return nil
}
