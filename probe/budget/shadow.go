package budget

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpprobe/mcpprobe/internal/editdist"
	"github.com/mcpprobe/mcpprobe/probe/findings"
)

// Shadow is a pair of tools of two servers of one config that a model
// can mistake for each other, and why: the strongest reason only, so a
// pair is said once.
type Shadow struct {
	A, B ServerTool
	// Why is "confusable" (the names' confusables skeletons are equal),
	// "one-edit" (short names one insertion, deletion, substitution or
	// swap apart) or "same-job" (the descriptions share most content words).
	Why    string
	Detail string
}

// Bounds on the pairwise comparison: a config's tools are compared
// pair by pair, at most maxShadowTools of them.
const (
	maxShadowTools = 2000
	maxShadows     = 100 // pairs listed; the rest are counted
	shortName      = 16  // runes: edit distance is looked at on names this short or shorter
	minEditName    = 4
	minSharedWords = 4
	minJaccard     = 0.65 // create_entities and create_relations of two memory servers share 0.60
)

// confusables maps characters to the Latin letter they are drawn like:
// a small vetted subset of Unicode's confusables.txt (UTS #39) for the
// letters tool names are made of: Cyrillic and Greek homoglyphs of Latin
// letters, digits drawn like letters, and fullwidth forms (folded apart).
// Multi-character look-alikes ("rn" for "m", "vv" for "w") are handled
// in skeleton.
var confusables = map[rune]rune{
	// Cyrillic
	'а': 'a', 'в': 'b', 'е': 'e', 'ё': 'e', 'һ': 'h', 'і': 'i', 'ї': 'i', 'ј': 'j', 'к': 'k', 'м': 'm',
	'н': 'h', 'о': 'o', 'р': 'p', 'с': 'c', 'т': 't', 'у': 'y', 'х': 'x', 'ѕ': 's', 'ԁ': 'd', 'ԛ': 'q',
	'ԝ': 'w', 'ӏ': 'l', 'ɡ': 'g', 'ь': 'b',
	'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T',
	'Х': 'X', 'У': 'Y', 'І': 'l', 'Ј': 'J', 'Ѕ': 'S', 'Ԁ': 'D', 'Ԛ': 'Q', 'Ԝ': 'W',
	// Greek
	'α': 'a', 'ο': 'o', 'ρ': 'p', 'ν': 'v', 'ι': 'i', 'κ': 'k', 'τ': 't', 'υ': 'u', 'χ': 'x', 'γ': 'y',
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'l', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O',
	'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
	// Latin and digits drawn alike
	'1': 'l', 'I': 'l', '|': 'l', 'ı': 'i', 'ℓ': 'l', '0': 'O', 'ߋ': 'o', '5': 'S',
	// separators a reader does not tell apart
	'‐': '-', '‑': '-', '‒': '-', '–': '-', '—': '-', '−': '-', '＿': '_',
}

// skeleton is a name as it is drawn: each character its look-alike,
// fullwidth forms folded, "rn" as "m" and "vv" as "w".
func skeleton(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0xFF01 && r <= 0xFF5E { // fullwidth ASCII
			r -= 0xFEE0
		}
		if c, ok := confusables[r]; ok {
			r = c
		}
		b.WriteRune(r)
	}
	return strings.NewReplacer("rn", "m", "vv", "w").Replace(b.String())
}

// confusedPairs names the characters two names differ in, for a message.
func confusedPairs(a, b string) string {
	ra, rb := []rune(a), []rune(b)
	if len(ra) != len(rb) {
		return ""
	}
	var out []string
	for i := range ra {
		if ra[i] != rb[i] {
			out = append(out, fmt.Sprintf("%s (U+%04X) for %s (U+%04X)", quoteRune(rb[i]), rb[i], quoteRune(ra[i]), ra[i]))
		}
	}
	return strings.Join(out, ", ")
}

func quoteRune(r rune) string { return fmt.Sprintf("%q", string(r)) }

// jobStop are words a description uses whatever its job.
var jobStop = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "from": true, "into": true, "this": true, "that": true,
	"tool": true, "use": true, "used": true, "using": true, "are": true, "can": true, "will": true, "you": true,
	"your": true, "not": true, "all": true, "any": true, "its": true, "has": true, "have": true, "returns": true,
	"return": true, "when": true, "which": true, "their": true, "them": true, "such": true, "also": true,
	"only": true, "one": true, "more": true, "may": true, "must": true, "should": true, "given": true,
	"specified": true, "optional": true, "default": true, "based": true, "about": true, "each": true,
}

// maxJobWords bounds the words of a description the same-job rule
// compares: a job is stated first.
const maxJobWords = 48

// jobWords are a description's first content words, cut to six letters.
func jobWords(d string) map[string]bool {
	out := map[string]bool{}
	if len(d) > 4096 {
		d = d[:4096]
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(d), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if utf8.RuneCountInString(w) < 3 || jobStop[w] {
			continue
		}
		if r := []rune(w); len(r) > 6 {
			w = string(r[:6])
		}
		out[w] = true
		if len(out) == maxJobWords {
			break
		}
	}
	return out
}

// sameJob reports whether two descriptions claim the same job: at least
// minSharedWords content words shared, and a Jaccard index of at least
// minJaccard; it returns the shared words, sorted.
func sameJob(a, b map[string]bool) ([]string, float64, bool) {
	var shared []string
	for w := range a {
		if b[w] {
			shared = append(shared, w)
		}
	}
	union := len(a) + len(b) - len(shared)
	if union == 0 || len(shared) < minSharedWords {
		return nil, 0, false
	}
	j := float64(len(shared)) / float64(union)
	sort.Strings(shared)
	return shared, j, j >= minJaccard
}

// hostSafe is a name as hosts that replace characters outside
// [A-Za-z0-9_-] make it: a pair equal this way is a tool-name-collision
// on those hosts, said there.
func hostSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}

// Shadows compares every pair of tools of different servers, in server
// and tool order (a config's whole-file sum does it in Sum; survey for
// the servers of each host config it reads).
func Shadows(servers []ServerTools) []Shadow { return shadows(servers) }

// capShadows keeps the first maxShadows pairs and counts the rest.
func capShadows(all []Shadow) ([]Shadow, int) {
	if len(all) <= maxShadows {
		return all, 0
	}
	return all[:maxShadows], len(all) - maxShadows
}

// Finding is the shadow as a tool-shadowing finding, about its first tool.
func (s Shadow) Finding() findings.Finding {
	return findings.New(findings.ToolShadowing, "%s", s.message()).About(s.A.Tool)
}

func shadows(servers []ServerTools) []Shadow {
	type entry struct {
		st   ServerTool
		skel string
		job  map[string]bool
	}
	var all []entry
	for _, s := range servers {
		for i, t := range s.Tools {
			if len(all) == maxShadowTools {
				break
			}
			e := entry{st: ServerTool{s.Name, t}, skel: skeleton(t)}
			if i < len(s.Descriptions) {
				e.job = jobWords(s.Descriptions[i])
			}
			all = append(all, e)
		}
	}
	var out []Shadow
	for i := range all {
		for j := i + 1; j < len(all); j++ {
			a, b := all[i], all[j]
			if a.st.Server == b.st.Server || a.st.Tool == b.st.Tool || hostSafe(a.st.Tool) == hostSafe(b.st.Tool) {
				continue
			}
			sh := Shadow{A: a.st, B: b.st}
			na, nb := utf8.RuneCountInString(a.st.Tool), utf8.RuneCountInString(b.st.Tool)
			switch {
			case a.skel == b.skel:
				sh.Why = "confusable"
				sh.Detail = confusedPairs(a.st.Tool, b.st.Tool)
			case na <= shortName && nb <= shortName && min(na, nb) >= minEditName && editdist.Distance(a.st.Tool, b.st.Tool, 2) == 1:
				sh.Why = "one-edit"
			default:
				shared, jac, ok := sameJob(a.job, b.job)
				if !ok {
					continue
				}
				sh.Why = "same-job"
				sh.Detail = fmt.Sprintf("%d content words shared (Jaccard %.2f): %s", len(shared), jac, capWords(shared, 8))
			}
			out = append(out, sh)
		}
	}
	return out
}

func capWords(ws []string, n int) string {
	if len(ws) <= n {
		return strings.Join(ws, ", ")
	}
	return strings.Join(ws[:n], ", ") + fmt.Sprintf(", and %d more", len(ws)-n)
}

// message is the shadow in words.
func (s Shadow) message() string {
	both := fmt.Sprintf("%s of server %s and %s of server %s", code(s.A.Tool), code(s.A.Server), code(s.B.Tool), code(s.B.Server))
	switch s.Why {
	case "confusable":
		d := ""
		if s.Detail != "" {
			d = ": " + s.Detail
		}
		return fmt.Sprintf("%s have names drawn alike (the same confusables skeleton, %s%s): a model, or a person approving a call, can take one for the other", both, code(skeleton(s.A.Tool)), d)
	case "one-edit":
		return fmt.Sprintf("%s have short names one edit apart: a model can call the one it did not mean", both)
	}
	return fmt.Sprintf("%s claim the same job (%s): a model picks between them by name alone", both, s.Detail)
}
