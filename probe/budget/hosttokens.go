package budget

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/probe/tokens"
	"github.com/tidwall/gjson"
)

// HostTokens is what one host pays on every request for a server's
// definitions, as it delivers them: descriptions after its cut (with its
// marker), input schemas after its drops, output schemas only where it
// delivers them, and the server's instructions where it delivers them
// (once) or prepends them (to every description). An o200k_base estimate:
// each host's model has its own tokenizer and wraps definitions its own way.
type HostTokens struct {
	Host string // the host's id
	// Tokens: the delivered tools array, plus Instructions.
	Tokens int
	// Instructions is the part of Tokens the server's instructions cost:
	// once where the host delivers them apart from the tools (whole or
	// cut), in every description where it prepends them (the difference
	// from the same tools without them); 0 where it drops them.
	Instructions int
	// Deferred: the host shows the tools only after a tool search (always,
	// or past its share of the context): Tokens is then what it pays once
	// they are loaded. What it pays before a search is not sourced.
	Deferred bool
	// Search is the host's tool-search rule: "always", "share_of_context",
	// "never" or "" (none known). With share_of_context, whether this
	// server alone passes the share is Deferred; a whole config decides on
	// the sum (Sum).
	Search string
}

// ToolFilter is a host config's list of the tools it shows of a server:
// Gemini CLI's includeTools and excludeTools, Codex's enabled_tools and
// disabled_tools. Both hosts read them the same way: with an Include list
// only those tools, and never one of Exclude.
type ToolFilter struct{ Include, Exclude []string }

// Active says whether the filter can leave a tool out.
func (f ToolFilter) Active() bool { return len(f.Include) > 0 || len(f.Exclude) > 0 }

// Keeps says whether the host shows a tool of this name: as
// launch.ConfigServer.Shows reads the same lists.
func (f ToolFilter) Keeps(name string) bool {
	return launch.ConfigServer{IncludeTools: f.Include, ExcludeTools: f.Exclude}.Shows(name)
}

// Filtered are the names of the tools a filter leaves out, in list order.
func (f ToolFilter) Filtered(names []string) []string {
	var out []string
	for _, n := range names {
		if !f.Keeps(n) {
			out = append(out, n)
		}
	}
	return out
}

// hostTokens works out HostTokens for every host but "all" (the
// strictest-of-each row mixes hosts and pays for none of them). Tools the
// filter leaves out are not paid for. raw is the count of the tools array
// as sent.
//
// A host's array is not counted over again: its count is raw's, with the
// count of each tool the host changes swapped for the count of what it
// delivers, each delivered tool counted once for all the hosts. Six hosts
// recounting 10,000 tools made budget several times slower; the swap
// differs from a recount only where "[", "," and "]" meet a changed tool's
// first and last characters, which every tool shares ("{" and "}"). With a
// filter, the kept tools are counted as an array of their own.
func hostTokens(ctx context.Context, items [][]byte, instr *string, d Delivery, raw tokens.Definitions, f ToolFilter) ([]HostTokens, error) {
	var out []HostTokens
	seen := map[string]int{}
	countTool := func(b []byte) (int, error) {
		if n, ok := seen[string(b)]; ok {
			return n, nil
		}
		// One copy for the count and the key, not two: at 100,000
		// tools the copies were most of what the garbage collector
		// chased.
		s := string(b)
		n, err := tokens.CountContext(ctx, s)
		if err == nil {
			seen[s] = n
		}
		return n, err
	}
	for _, hr := range d.Hosts {
		h := hr.Host
		if h.ID == "all" {
			continue
		}
		ht := HostTokens{Host: h.ID}
		count := func(instr *string) (int, error) {
			delivered, changed := deliveredTools(items, hr, instr)
			if f.Active() {
				var kept [][]byte
				for i, t := range hr.Tools {
					if i < len(delivered) && f.Keeps(t.Name) {
						kept = append(kept, delivered[i])
					}
				}
				def, err := tokens.OfToolsContext(ctx, nil, kept)
				return def.Total, err
			}
			total := raw.Total
			for i, c := range changed {
				if !c || i >= len(raw.Tools) {
					continue
				}
				n, err := countTool(delivered[i])
				if err != nil {
					return 0, err
				}
				total += n - raw.Tools[i].Tokens
			}
			return total, nil
		}
		n, err := count(instr)
		if err != nil {
			return nil, err
		}
		ht.Tokens = n
		if instr != nil && *instr != "" && h.Instructions.Rule == "prepended" {
			without, err := count(nil)
			if err != nil {
				return nil, err
			}
			ht.Instructions = n - without
		}
		if in := hr.Instructions; instr != nil && (in.Mode == "whole" || in.Mode == "cut") {
			n, err := tokens.CountContext(ctx, in.Head+in.Marker)
			if err != nil {
				return nil, err
			}
			ht.Instructions = n
			ht.Tokens += n
		}
		if s := h.ToolSearch; s != nil {
			ht.Search = s.Rule
			ht.Deferred = s.Rule == "always" || (s.Rule == "share_of_context" && ht.Tokens > s.Threshold())
		}
		if h.Description.Deferred {
			ht.Deferred = true
		}
		out = append(out, ht)
	}
	return out, nil
}

// deliveredTools rebuilds each tool definition as the host sends it on to
// its model, keeping the server's bytes for every member it does not
// change; changed says which tools it changed.
func deliveredTools(items [][]byte, hr HostResult, instr *string) (out [][]byte, changed []bool) {
	prepend := ""
	if instr != nil && hr.Host.Instructions.Rule == "prepended" && *instr != "" {
		prepend = *instr
	}
	out = make([][]byte, len(items))
	changed = make([]bool, len(items))
	for i, raw := range items {
		out[i] = raw
		if i >= len(hr.Tools) {
			continue
		}
		t := hr.Tools[i]
		desc, setDesc := "", false
		switch {
		case prepend != "" && t.Description.Mode == "missing":
			desc, setDesc = prepend, true
		case prepend != "":
			// The separator Codex puts between the two is not
			// documented: a blank line is assumed.
			desc, setDesc = prepend+"\n\n"+t.Description.Head+markerOf(t.Description), true
		case t.Description.Mode == "cut":
			desc, setDesc = t.Description.Head+t.Description.Marker, true
		}
		dropSchema := t.Schema.Dropped && t.Schema.DroppedSchema != nil
		dropOut := t.OutputSchema == "not_delivered"
		if !setDesc && !dropSchema && !dropOut {
			continue
		}
		v := gjson.ParseBytes(raw)
		if !v.IsObject() {
			continue
		}
		changed[i] = true
		var b bytes.Buffer
		b.WriteByte('{')
		n := 0
		member := func(k, val string) {
			if n > 0 {
				b.WriteByte(',')
			}
			b.WriteString(k)
			b.WriteByte(':')
			b.WriteString(val)
			n++
		}
		sawDesc := false
		v.ForEach(func(k, val gjson.Result) bool {
			switch k.String() {
			case "description":
				sawDesc = true
				if setDesc {
					member(k.Raw, quote(desc))
					return true
				}
			case "inputSchema":
				if dropSchema {
					member(k.Raw, string(Serialize(t.Schema.DroppedSchema)))
					return true
				}
			case "outputSchema":
				if dropOut {
					return true
				}
			}
			member(k.Raw, val.Raw)
			return true
		})
		if setDesc && !sawDesc {
			member(`"description"`, quote(desc))
		}
		b.WriteByte('}')
		out[i] = b.Bytes()
	}
	return out, changed
}

func markerOf(t Text) string {
	if t.Mode == "cut" {
		return t.Marker
	}
	return ""
}

// quote is a JSON string as a host's JSON library writes it: no HTML
// escaping.
func quote(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return string(bytes.TrimRight(buf.Bytes(), "\n"))
}
