package reports

import (
	"io"

	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
)

// Result is what every command hands to the one output path (the CLI's
// emit): the envelope's facts, what the gates count, and its two
// renderings. golangci-lint's printers are the model: the CLI chooses,
// reports renders, and nothing between them is assembled by hand. Each
// command has one adapter, named New<Command>, that makes its Result.
type Result interface {
	Command() string
	Target() string   // already redacted or not: the output path redacts everything
	Protocol() string // negotiated; "" when none was
	Findings() []findings.Finding
	Counts() map[string]int    // categories counted outside findings (drift)
	Section() []byte           // the command's --json section; nil is written null
	Text(w io.Writer)          // text, or markdown when Markdown says so
	Markdown() bool            // never fitted to a terminal or coloured
	Failure() *jsonout.Failure // why the run ends without its whole result: the --json error member
}

// adapted is every adapter's Result: the facts, and the renderers chosen
// for them.
type adapted struct {
	command  string
	target   string
	protocol string
	findings []findings.Finding
	counts   map[string]int
	section  func() []byte
	text     func(io.Writer)
	markdown bool
	fail     *jsonout.Failure
}

func (r *adapted) Command() string              { return r.command }
func (r *adapted) Target() string               { return r.target }
func (r *adapted) Protocol() string             { return r.protocol }
func (r *adapted) Findings() []findings.Finding { return r.findings }
func (r *adapted) Counts() map[string]int       { return r.counts }
func (r *adapted) Markdown() bool               { return r.markdown }
func (r *adapted) Failure() *jsonout.Failure    { return r.fail }

func (r *adapted) Section() []byte {
	if r.section == nil {
		return nil
	}
	return r.section()
}

func (r *adapted) Text(w io.Writer) {
	if r.text != nil {
		r.text(w)
	}
}

// WithFailure is r with f as its failure: a run that ends without its
// whole result still prints what it has, and says why.
func WithFailure(r Result, f *jsonout.Failure) Result { return failed{r, f} }

type failed struct {
	Result
	fail *jsonout.Failure
}

func (f failed) Failure() *jsonout.Failure { return f.fail }
