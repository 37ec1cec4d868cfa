package findings

import (
	"fmt"
	"slices"
	"sort"
)

// Finding is something about the server worth telling its author. The
// JSON names are those every --json output has used since the first
// release; renderers may build the object by hand, but must keep them.
type Finding struct {
	Severity Severity `json:"severity"`
	Code     Code     `json:"code"`
	Message  string   `json:"message"`
	Tool     string   `json:"tool,omitempty"` // the tool it concerns, if one
	// Count is how many findings of its kind (severity, code, tool) this
	// one stands for, when it folds them (Fold): Message is the first's,
	// and the next few's are its examples. 0 for a finding that stands
	// for itself.
	Count int `json:"count,omitempty"`
	// examples are kept in an array, not a slice, so that a Finding
	// stays comparable with ==; Examples lists them.
	examples [MaxExamples]string
}

// Examples are the messages of the findings a folded finding stands for
// after its own, as many as it keeps (MaxExamples).
func (f Finding) Examples() []string {
	var out []string
	for _, m := range f.examples {
		if m != "" {
			out = append(out, m)
		}
	}
	return out
}

// New makes a finding of a registered code at the code's severity.
//
// It panics on a code that is not registered. Codes are the constants of
// codes.go, and a test checks that each has a definition, so only a
// conversion such as Code(99) gets there: a programming error better
// stopped than turned into a finding without a severity, which no gate
// would see.
func New(code Code, format string, args ...any) Finding {
	d := mustLookup(code)
	return Finding{Severity: d.Severity, Code: code, Message: fmt.Sprintf(format, args...)}
}

// NewAt makes a finding at a severity other than the code's own, for the
// few codes whose weight depends on what they concern (empty-description
// is a warning on a tool and info on a prompt). The registry lists those
// severities in Def.Also, and the README shows them; NewAt panics on any
// other, for the reason New panics on an unknown code.
func NewAt(sev Severity, code Code, format string, args ...any) Finding {
	d := mustLookup(code)
	if sev != d.Severity && !slices.Contains(d.Also, sev) {
		panic(fmt.Sprintf("findings: %s is registered as %s, not %s; add %s to its Also", code, d.Severity, sev, sev))
	}
	return Finding{Severity: sev, Code: code, Message: fmt.Sprintf(format, args...)}
}

// About returns f concerning the named tool.
func (f Finding) About(tool string) Finding {
	f.Tool = tool
	return f
}

func mustLookup(code Code) Def {
	d, ok := Lookup(code)
	if !ok {
		panic(fmt.Sprintf("findings: code %q is not registered in codes.go", code))
	}
	return d
}

// Sort orders findings most severe first, then by code, keeping the order
// of findings with the same severity and code, so that a report is stable.
func Sort(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if ra, rb := a.Severity.Rank(), b.Severity.Rank(); ra != rb {
			return ra > rb
		}
		return a.Code.String() < b.Code.String()
	})
}

// Sorted is Sort on a copy.
func Sorted(fs []Finding) []Finding {
	out := append([]Finding(nil), fs...)
	Sort(out)
	return out
}
