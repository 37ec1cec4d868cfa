package diff

import (
	"context"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/wire"
)

// Source is one side of a diff: a reference file (or wire --save
// directory), or a live server. Exactly one is set.
type Source struct {
	Path string
	Live *wire.Options
	// Name is how the user named this side (e.g. "--ref"), to begin the
	// message when the file cannot be read.
	Name string
}

// Options are the diff command's: the reference first (--ref FILE, or A
// of A -- B), then what is compared with it.
type Options struct {
	Ref, Live Source
	// Ignore leaves parts out of the comparison on purpose (a server
	// version that changes every release). Each must be a part both sides
	// record: ignoring what is not compared anyway would say nothing.
	Ignore []Part
}

// Result is a comparison and the two sides it was made between.
type Result struct {
	Comparison
	Ref, Live Side
	// Capture is the live side's probe, when it is a live server (the
	// second one of two): for its protocol version.
	Capture *probe.Capture
}

// Run loads or probes each side, the reference first, and compares them.
// A reference that cannot be read is a *probe.OptionError (the user named
// it); a server that cannot be probed is wire.Run's error.
func Run(ctx context.Context, o Options) (*Result, error) {
	r := &Result{}
	var err error
	// Files first: a missing reference is known before any server starts.
	if o.Ref.Live == nil {
		if r.Ref, err = LoadSource(o.Ref); err != nil {
			return nil, err
		}
	}
	if o.Live.Live == nil {
		if r.Live, err = LoadSource(o.Live); err != nil {
			return nil, err
		}
	}
	// A live side records every part, so the files alone decide, before
	// any server starts.
	if err := checkIgnore(o, r.Ref, r.Live); err != nil {
		return nil, err
	}
	if o.Ref.Live != nil {
		if r.Ref, _, err = probeSide(ctx, *o.Ref.Live); err != nil {
			return nil, err
		}
	}
	if o.Live.Live != nil {
		if r.Live, r.Capture, err = probeSide(ctx, *o.Live.Live); err != nil {
			return nil, err
		}
	}
	r.Comparison = CompareParts(r.Ref, r.Live, o.Ignore)
	return r, nil
}

// checkIgnore refuses to ignore a part a file side does not record.
func checkIgnore(o Options, ref, live Side) error {
	for _, p := range o.Ignore {
		for _, s := range []struct {
			src  Source
			side Side
			name string
		}{{o.Ref, ref, "the reference"}, {o.Live, live, "the compared side"}} {
			if s.src.Live == nil && !s.side.Records.Has(p) {
				return probe.Optionf("--ignore %s: %s (%s, %s) does not record %s, so it is not compared anyway", p, s.name, s.side.Label, FormatName(s.side.Format), p)
			}
		}
	}
	return nil
}

// LoadSource reads a file side. A file that cannot be read, or is no known
// format, is a *probe.OptionError: the user named it.
func LoadSource(src Source) (Side, error) {
	s, err := LoadPath(src.Path)
	switch {
	case err != nil && src.Name != "":
		return Side{}, probe.Optionf("%s: %v", src.Name, err)
	case err != nil:
		return Side{}, probe.Optionf("%v", err)
	}
	return s, nil
}

func probeSide(ctx context.Context, o wire.Options) (Side, *probe.Capture, error) {
	w, err := wire.Run(ctx, o)
	if err != nil {
		return Side{}, nil, err
	}
	return FromCapture(w.Capture, o.Target.Display()), w.Capture, nil
}

// Findings: a diff has none; what differs is counted (Counts).
func (r *Result) Findings() []findings.Finding { return nil }

// Counts holds the drift gate's count: every change, and every item
// added and removed, in every compared part, order changes included.
func (r *Result) Counts() map[string]int {
	if !r.Drift() {
		return nil
	}
	return map[string]int{"drift": r.DriftCount()}
}
