package args

import (
	"strings"

	"github.com/tidwall/gjson"
)

// The tool-call consent rule. Annotations are hints the spec calls
// untrusted, and a server picks the arguments mcpprobe would send (they
// are built from its schema): so a tool is called without the user naming
// it only when its hints, read strictly, promise it changes nothing.
// readOnlyHint must be the JSON literal true; destructiveHint absent or
// false; every hint present a plain JSON boolean, each given once (a host
// that keeps the first of two keys and one that keeps the last would
// disagree on what the tool is). openWorldHint true does not stop a call:
// the spec's default is true, and a read of the outside world writes
// nothing; it is said in the reason. check and malformed (Choose) also
// leave out a tool whose name or title speaks of long work: each call
// would wait it out.

// Hints are the annotations the rule reads, each of which must be a plain
// boolean when present.
var Hints = []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}

// Choice is the decision on one tool: whether it is called, and why.
type Choice struct {
	Tool string
	Call bool
	Why  string
}

// Reasons a tool is or is not called, besides what its hints say.
const (
	NoToolCalls = "no tool calls allowed (--no-tool-calls)"
	NamedByUser = "named with --call"
	NotNamed    = "not named with --call"
)

// Consented says whether a raw tool definition may be called without
// being named, and why (the hint read, or the one that stops it).
func Consented(tool []byte) (bool, string) {
	ann := gjson.GetBytes(tool, "annotations")
	if ann.Exists() && !ann.IsObject() {
		return false, "annotations is not an object"
	}
	seen := map[string]int{}
	bad := ""
	ann.ForEach(func(k, v gjson.Result) bool {
		for _, h := range Hints {
			if k.String() != h {
				continue
			}
			seen[h]++
			switch {
			case seen[h] > 1:
				bad = h + " is given twice"
			case v.Type != gjson.True && v.Type != gjson.False:
				bad = h + " is " + shortRaw(v.Raw) + ", not a JSON boolean"
			}
		}
		return bad == ""
	})
	if bad != "" {
		return false, bad
	}
	switch {
	case ann.Get("destructiveHint").Type == gjson.True:
		return false, "destructiveHint true"
	case ann.Get("readOnlyHint").Type == gjson.False:
		return false, "readOnlyHint false"
	case ann.Get("readOnlyHint").Type != gjson.True:
		return false, NotReadOnly
	}
	if ann.Get("openWorldHint").Type == gjson.True {
		return true, "readOnlyHint true; openWorldHint true: it may read outside systems"
	}
	return true, "readOnlyHint true"
}

// longWorkWords suggest a tool that takes its time: a call to it would
// wait out --timeout.
var longWorkWords = []string{"long-running", "long running", "long_running", "longrunning", "sleep", "slow", "delay"}

// longWork is the word of the tool's name or title that suggests long
// work, "" if none. Descriptions are not read: prose says "slower" or
// "waits" of tools that answer at once ("free text is slower: use it
// last"), and a tool left out loses its cases.
func longWork(tool []byte) string {
	v := gjson.ParseBytes(tool)
	text := strings.ToLower(v.Get("name").String() + " " + v.Get("title").String())
	for _, w := range longWorkWords {
		if strings.Contains(text, w) {
			return `"` + w + `"`
		}
	}
	return ""
}

func shortRaw(raw string) string {
	if raw == "" {
		return "absent"
	}
	if len(raw) > 20 {
		return raw[:20] + "…"
	}
	return raw
}

// Choose decides, for each listed tool in the server's order, whether it
// is called: none with noCalls; with names, exactly the named ones (naming
// a tool is the user's consent, whatever its hints); else those Consented.
func Choose(tools [][]byte, named []string, noCalls bool) []Choice {
	want := map[string]bool{}
	for _, n := range named {
		want[n] = true
	}
	var out []Choice
	for _, raw := range tools {
		name := gjson.GetBytes(raw, "name").String()
		c := Choice{Tool: name}
		switch {
		case noCalls:
			c.Why = NoToolCalls
		case len(want) > 0 && want[name]:
			c.Call, c.Why = true, NamedByUser
		case len(want) > 0:
			c.Why = NotNamed
		default:
			c.Call, c.Why = Consented(raw)
			if w := longWork(raw); c.Call && w != "" {
				c.Call, c.Why = false, "its name or title speaks of long work ("+w+"): a call would wait it out"
			}
		}
		out = append(out, c)
	}
	return out
}

// Cheapest orders tools for a call whose cost should be least: fewest
// required arguments, then the smallest input schema, then the server's
// order. It returns the indexes into tools.
func Cheapest(tools [][]byte) []int {
	idx := make([]int, len(tools))
	for i := range idx {
		idx[i] = i
	}
	cost := func(i int) (int, int) {
		s := gjson.GetBytes(tools[i], "inputSchema")
		return len(s.Get("required").Array()), len(s.Raw)
	}
	// insertion sort: stable, and lists are short
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0; j-- {
			ra, sa := cost(idx[j-1])
			rb, sb := cost(idx[j])
			if rb < ra || rb == ra && sb < sa {
				idx[j-1], idx[j] = idx[j], idx[j-1]
				continue
			}
			break
		}
	}
	return idx
}
