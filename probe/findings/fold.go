package findings

// A server decides how often it repeats itself: 100,000 invalid messages
// must make one row, not 100,000. Findings of one kind (severity, code and
// tool) past FoldAt are folded into the first of them, which counts them
// all and keeps a few of the others' messages as examples.

// FoldAt is how many findings of one kind are kept one by one; the next
// one folds them all into one.
const FoldAt = 10

// MaxExamples is how many messages a folded finding keeps besides its own.
const MaxExamples = 3

type kind struct {
	sev  Severity
	code Code
	tool string
}

func kindOf(f Finding) kind { return kind{f.Severity, f.Code, f.Tool} }

// Times is how many findings f stands for: its Count when it folds
// others, else one.
func (f Finding) Times() int {
	if f.Count > 1 {
		return f.Count
	}
	return 1
}

// Total is how many findings fs stands for, folded ones counted in full.
func Total(fs []Finding) int {
	n := 0
	for _, f := range fs {
		n += f.Times()
	}
	return n
}

// Fold returns fs with every kind of more than FoldAt findings folded into
// its first, which takes the kind's place in the order; other findings
// keep theirs. Findings already folded count for all they stand for, so
// folding twice changes nothing.
func Fold(fs []Finding) []Finding {
	n := map[kind]int{}
	for _, f := range fs {
		n[kindOf(f)] += f.Times()
	}
	fold := false
	for _, c := range n {
		fold = fold || c > FoldAt
	}
	if !fold {
		return fs
	}
	out := make([]Finding, 0, len(fs))
	at := map[kind]int{} // where each folded kind's row is in out
	for _, f := range fs {
		k := kindOf(f)
		if n[k] <= FoldAt {
			out = append(out, f)
			continue
		}
		i, ok := at[k]
		if !ok {
			at[k] = len(out)
			g := f
			g.Count = n[k]
			out = append(out, g)
			continue
		}
		out[i] = withExample(out[i], f)
	}
	return out
}

// withExample adds f's message (and its own examples) to folded g's
// examples, up to MaxExamples.
func withExample(g, f Finding) Finding {
	n := len(g.Examples())
	for _, m := range append([]string{f.Message}, f.Examples()...) {
		if n >= MaxExamples {
			break
		}
		if m == "" {
			m = " " // an empty message still counts as an example
		}
		g.examples[n] = m
		n++
	}
	return g
}

// Add appends f to fs as Fold would have it: a kind's first FoldAt
// findings one by one, and from the next on one folded finding. A list
// that a server can make grow without end (one finding per message it
// sends) stays within FoldAt rows per kind, however long the server
// goes on. Add(…Add(nil, a)…, z) is Fold([a … z]).
func Add(fs []Finding, f Finding) []Finding {
	k := kindOf(f)
	first, n := -1, 0
	for i, g := range fs {
		if kindOf(g) != k {
			continue
		}
		if first < 0 {
			first = i
		}
		n += g.Times()
	}
	if n+f.Times() <= FoldAt {
		return append(fs, f)
	}
	if fs[first].Count > 0 && n == fs[first].Count {
		// Folded already, into one row: count it there.
		fs[first] = withExample(fs[first], f)
		fs[first].Count += f.Times()
		return fs
	}
	// Fold the kind into its first row, in place, and drop the others.
	g := fs[first]
	out := fs[:first]
	for _, h := range fs[first+1:] {
		if kindOf(h) == k {
			g = withExample(g, h)
			continue
		}
		out = append(out, h)
	}
	g = withExample(g, f)
	g.Count = n + f.Times()
	// g goes back where the kind's first finding was.
	out = append(out, Finding{})
	copy(out[first+1:], out[first:])
	out[first] = g
	return out
}
