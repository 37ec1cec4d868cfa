package wire

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/cards"
	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/mcpprobe/mcpprobe/probe/findings"
)

// Options say which server to probe and how: the wire command's, and the
// first step of every command that reads a capture (budget, diff,
// snapshot, report).
type Options struct {
	dial.Spec
	// Progress, when set, hears the target's display name as the probe
	// starts and "" when it ends, for a progress line.
	Progress func(target string)
	// Cards also looks for the server cards and catalogs of an HTTP
	// target (the wire command's; the commands that only read the
	// definitions do not ask for them).
	Cards bool
}

// Result is one probe of a server.
type Result struct {
	Capture *probe.Capture
	// Cards are the server cards and catalogs looked for (Options.Cards,
	// an HTTP target), nil otherwise.
	Cards *cards.Result
}

// Run starts the server, lists everything it offers (tools twice, to see
// that the list is stable), stops it and returns the capture. A server
// that cannot be probed is an error explained in three parts
// (*probe.FatalError); the capture of what was seen until then comes with
// it when there is one, so that it can still be shown.
func Run(ctx context.Context, o Options) (*Result, error) {
	spec := o.Spec
	spec.Probe.RecheckTools = true
	if o.Progress != nil {
		o.Progress(o.Target.Display())
		defer o.Progress("")
	}
	c, err := dial.Probe(ctx, spec)
	if c == nil {
		return nil, err
	}
	r := &Result{Capture: c}
	// Only a server that answered is asked for its cards: one that could
	// not be probed would only add its timeouts to the failure.
	if o.Cards && err == nil && (o.Target.Kind == "http" || o.Target.Kind == "sse") && ctx.Err() == nil {
		r.Cards = cards.Fetch(ctx, cards.Options{URL: o.Target.URL, Timeout: o.Probe.Timeout, Insecure: o.Launch.Insecure, UserAgent: o.Launch.UserAgent})
	}
	return r, err
}

// Findings are what the probe saw of the wire, the process and the
// exchange.
func (r *Result) Findings() []findings.Finding { return r.Capture.Findings }

// Counts is empty: wire gates on findings only.
func (r *Result) Counts() map[string]int { return nil }

// SavedPage is one response as received, with the file name wire --save
// gives it.
type SavedPage struct {
	Name string // "03-tools-list.2.json": protocol order, method, page
	Raw  []byte
}

// Pages are the handshake's response, then every page of every list, in
// protocol order, exactly as received. The names sort as ls shows them,
// and diff reads a directory of them back (the *-tools-list.N.json files).
func (r *Result) Pages() []SavedPage {
	c := r.Capture
	var pages []probe.Page
	if c.Handshake != nil {
		pages = append(pages, *c.Handshake)
	}
	for _, l := range []probe.List{c.Tools, c.Prompts, c.Resources, c.Templates} {
		pages = append(pages, l.Pages...)
	}
	if c.Skills != nil {
		pages = append(pages, c.Skills.List.Pages...)
	}
	out := make([]SavedPage, len(pages))
	for i, p := range pages {
		out[i] = SavedPage{Name: fmt.Sprintf("%02d-%s.%d.json", i, strings.ReplaceAll(p.Method, "/", "-"), p.N), Raw: p.Raw}
	}
	return out
}
