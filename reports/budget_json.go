package reports

import (
	"math"

	"github.com/mcpprobe/mcpprobe/probe/budget"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
)

// BudgetSection is budget's --json section (fields in the README).
// Lengths are in each host's unit. Its findings, the lint's included,
// are the envelope's.
func BudgetSection(r *budget.Result) []byte {
	o := &jsonout.Object{}
	var hosts [][]byte
	for _, hr := range r.Delivery.Hosts {
		ho := &jsonout.Object{}
		ho.Set("host", hr.Host.ID).Set("name", hr.Host.Name).Set("unit", unitOr(hr.Host.Description.Unit))
		ho.Set("measured_on", hr.Host.MeasuredOn).Set("source", hr.Host.Source)
		ho.Set("description_rule", hr.Host.Description)
		ho.Set("instructions_rule", hr.Host.Instructions)
		ho.Set("input_schema_rule", hr.Host.InputSchema)
		ho.Set("output_schema", hr.Host.OutputSchema)
		ho.Set("initialize_deadline_ms", jsonout.NsOrNull(int64(hr.Host.InitializeDeadlineMs), hr.Host.InitializeDeadlineMs > 0))
		ho.Set("result_limit_tokens", jsonout.NsOrNull(int64(hr.Host.ResultLimitTokens), hr.Host.ResultLimitTokens > 0))
		var tools [][]byte
		asSent := 0
		for _, t := range hr.Tools {
			if t.AsSent() {
				asSent++
				if !r.PerHostTools {
					continue
				}
			}
			to := &jsonout.Object{}
			to.Set("name", t.Name)
			textJSON(to, "description", t.Description)
			so := &jsonout.Object{}
			so.Set("rule", t.Schema.Rule).Set("serialized_len", t.Schema.Serialized).Set("unit", t.Schema.Unit)
			so.Set("over", jsonout.NsOrNull(int64(t.Schema.Over), t.Schema.Over > 0)).Set("threshold_unknown", t.Schema.Unknown)
			so.Set("property_descriptions", t.Schema.Descriptions).Set("dropped", t.Schema.Dropped).Set("dropped_chars", t.Schema.DroppedChars)
			to.Raw("input_schema", so.Bytes())
			to.Set("output_schema", jsonout.NullIfEmpty(t.OutputSchema))
			tools = append(tools, to.Bytes())
		}
		ho.Raw("tools", jsonout.RawArray(tools))
		ho.Set("tools_listed", map[bool]string{true: "all", false: "changed"}[r.PerHostTools])
		ho.Set("tools_as_sent", asSent)
		io := &jsonout.Object{}
		textJSON(io, "", hr.Instructions)
		ho.Raw("instructions", io.Bytes())
		hosts = append(hosts, ho.Bytes())
	}
	o.Raw("hosts", jsonout.RawArray(hosts))
	var lost [][]byte
	for _, l := range r.Delivery.OutputLost {
		lost = append(lost, (&jsonout.Object{}).Set("tool", l.Tool).Set("descriptions", l.Descriptions).Set("chars", l.Chars).Bytes())
	}
	o.Raw("output_schema_undelivered", jsonout.RawArray(lost))
	o.Set("filtered_out", nonNil(r.FilteredOut))
	if d := r.Tokens; d != nil {
		to := &jsonout.Object{}
		to.Set("encoding", d.Encoding).Set("estimate", true).Set("total", d.Total)
		var per [][]byte
		for _, t := range d.Tools {
			per = append(per, (&jsonout.Object{}).Set("name", t.Name).Set("tokens", t.Tokens).Bytes())
		}
		to.Raw("tools", jsonout.RawArray(per))
		to.Raw("by_host", hostTokensJSON(r.HostTokens))
		o.Raw("tokens", to.Bytes())
	} else {
		o.Raw("tokens", nil)
	}
	if r.Skills != nil {
		o.Raw("skills", budgetSkillsJSON(r.Skills))
	}
	return o.Bytes()
}

func unitOr(u string) string {
	if u == "" {
		return "utf16"
	}
	return u
}

// textJSON adds a budget.Text's fields; with prefix "" they go in bare.
func textJSON(o *jsonout.Object, prefix string, t budget.Text) {
	key := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "_" + k
	}
	if prefix == "" {
		o.Set("len", t.Len)
	} else {
		o.Set(key("len"), t.Len)
	}
	o.Set(key("bytes"), t.Bytes).Set(key("codepoints"), t.Runes).Set("unit", t.Unit)
	o.Set("delivered", t.Mode)
	o.Set("delivered_len", t.Delivered).Set("lost_len", t.Lost).Set("lost_pct", math.Round(t.LostPct*10)/10)
	o.Set("deferred", t.Deferred)
	if t.Cut != nil {
		hides := make([][]byte, 0, len(t.Omits))
		for _, l := range t.Omits {
			hides = append(hides, (&jsonout.Object{}).Set("rule", l.Rule).Set("words", l.Words).Set("sentence", l.Sentence).Bytes())
		}
		o.Raw("cut", (&jsonout.Object{}).Set("at", t.Cut.At).Set("line", t.Cut.Line).Set("column", t.Cut.Column).
			Set("splits_word", t.Cut.SplitsWord).Set("splits_character", t.Cut.SplitsChar).Items("hides", hides).Bytes())
	} else {
		o.Raw("cut", nil)
	}
}

// hostTokensJSON is tokens.by_host: what each host pays on every request
// as it delivers the definitions.
func hostTokensJSON(hs []budget.HostTokens) []byte {
	var out [][]byte
	for _, h := range hs {
		out = append(out, (&jsonout.Object{}).Set("host", h.Host).Set("tokens", h.Tokens).Set("instructions_tokens", h.Instructions).
			Set("tool_search", jsonout.NullIfEmpty(h.Search)).Set("if_loaded", h.Deferred).Bytes())
	}
	return jsonout.RawArray(out)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
