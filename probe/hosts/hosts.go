// Package hosts holds what is known of each AI host: its profile (where
// it cuts descriptions and instructions, which schema parts it drops,
// how it names tools, what it hands the model of a result, how long it
// waits to start a server) and the clients' call timeout policies. Host
// behaviour is data (hosts.json, embedded, or a --hosts file), never
// code; the packages that judge a server against it (budget, result,
// bench) import this one.
package hosts

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcpprobe/mcpprobe/probe/inputfile"
	"github.com/mcpprobe/mcpprobe/probe/jsonerr"
)

//go:embed hosts.json
var hostsJSON []byte

// Rule says how a host treats one text.
type Rule struct {
	// Rule is "whole", "cut", "not_delivered" or "prepended" (instructions
	// added to every tool description).
	Rule   string `json:"rule"`
	Limit  int    `json:"limit,omitempty"`
	Unit   string `json:"unit,omitempty"` // "utf16", "codepoint" or "byte"
	Marker string `json:"marker,omitempty"`
	// Surrogate says what a utf16 cut does when the limit falls between
	// the two halves of a surrogate pair: "split" (the host keeps the high
	// half, which reaches the model as U+FFFD; a bare slice) or "whole"
	// (the host drops that half: the pair is kept whole or not at all, and
	// one unit fewer is delivered). "" is "split".
	Surrogate string `json:"surrogate,omitempty"`
	// Deferred: the host shows tools to the model only after a tool search.
	Deferred bool `json:"deferred,omitempty"`
	// Verified cites the host's own code this rule was read from: the
	// package, its version and the function ("" when the rule comes from
	// reports only).
	Verified string `json:"verified,omitempty"`
	// Source and Date name where a rule not read in code comes from; with
	// rule "unknown" Source says why nothing is known (the budget then
	// counts the text as delivered whole, and says the rule is unknown).
	Source string `json:"source,omitempty"`
	Date   string `json:"date,omitempty"`
	Sure   string `json:"sure,omitempty"` // see Sure
}

// Sure says how a rule is known: "code" (read in the host's shipped code
// or public source, pinned), "docs" (the host's documentation), "report"
// (an issue or a user's report), "unknown" (no source; the rule field
// then says what mcpprobe assumes and Source why).
const (
	SureCode    = "code"
	SureDocs    = "docs"
	SureReport  = "report"
	SureUnknown = "unknown"
)

// ToolLimit is a ceiling on how many tools a host offers the model.
type ToolLimit struct {
	// Scope is "request" (every tool of one request, the host's own
	// built-in tools included), "server" (one server's tools) or "mcp"
	// (the MCP tools of every server together, built-ins not counted).
	Scope string `json:"scope"`
	Limit int    `json:"limit"`
	// Builtins is how many tools of its own the host sends beside the
	// servers' in a request limit's count (0: none or not known, see
	// Source).
	Builtins int `json:"builtins,omitempty"`
	// Over is what happens past it: "refused" (the request fails),
	// "dropped" (tools past it are not offered), "grouped" (tools go
	// behind virtual activate_* tools) or "warned" (a warning only).
	Over string `json:"over"`
	// Threshold, for "grouped", is the count past which grouping starts
	// when it differs from Limit.
	Threshold int    `json:"threshold,omitempty"`
	Source    string `json:"source"`
	Date      string `json:"date"`
	Sure      string `json:"sure"`
}

// Feature says whether a host hands the model something a server offers
// beside its tools: prompts, resources, a tool's _meta.
type Feature struct {
	Rule   string `json:"rule"` // "delivered", "not_delivered", "dropped" or "unknown"
	Source string `json:"source"`
	Date   string `json:"date,omitempty"`
	Sure   string `json:"sure,omitempty"`
}

// Quirk is a schema (or definition) shape that makes a host refuse or
// rewrite a tool.
type Quirk struct {
	What   string `json:"what"`
	Does   string `json:"does"` // "refused", "rewritten" or "dropped"
	Source string `json:"source"`
	Date   string `json:"date"`
	Sure   string `json:"sure"`
}

// SchemaRule says how a host treats an input schema.
type SchemaRule struct {
	// Rule is "whole", "drop_property_descriptions" or "unknown".
	Rule string `json:"rule"`
	// Over is the serialized size past which descriptions are dropped;
	// 0 with drop_property_descriptions means the threshold is unknown.
	Over int    `json:"over,omitempty"`
	Unit string `json:"unit,omitempty"`
}

// Host is one host's profile.
type Host struct {
	ID                   string     `json:"id"`
	Name                 string     `json:"name"`
	MeasuredOn           string     `json:"measured_on"`
	Source               string     `json:"source"`
	Description          Rule       `json:"description"`
	ToolNames            *NameRule  `json:"tool_names,omitempty"`
	ToolSearch           *Search    `json:"tool_search,omitempty"`
	Instructions         Rule       `json:"instructions"`
	InputSchema          SchemaRule `json:"input_schema"`
	OutputSchema         string     `json:"output_schema"` // "delivered", "not_delivered", "sometimes"
	Result               ResultRule `json:"result"`
	ResultLimitTokens    int        `json:"result_limit_tokens,omitempty"`
	InitializeDeadlineMs int        `json:"initialize_deadline_ms,omitempty"`
	OverrideEnv          string     `json:"override_env,omitempty"`
	Notes                string     `json:"notes,omitempty"`
	// Since is the first version of the host the rules above hold for,
	// when the host changed them between versions; Versions are the rules
	// of the versions before it, picked with --host ID@VERSION (never
	// listed by default, but counted in the strictest "all" row).
	Since    string    `json:"since,omitempty"`
	Versions []Version `json:"versions,omitempty"`

	// What a host applies beyond the definitions' texts (optional; rows
	// of the older shape load without them).
	ToolLimits   []ToolLimit `json:"tool_limits,omitempty"`
	Prompts      *Feature    `json:"prompts,omitempty"`
	Resources    *Feature    `json:"resources,omitempty"`
	ToolMeta     *Feature    `json:"tool_meta,omitempty"` // a tool's _meta from tools/list
	SchemaQuirks []Quirk     `json:"schema_quirks,omitempty"`
	// Aliases are other products that share this profile (Copilot in
	// JetBrains for VS Code's).
	Aliases string `json:"aliases,omitempty"`

	// SecureInputSchema is what the host does with a tool's
	// secureInputSchema (SEP-3221: hosts SHOULD show only inputSchema to
	// the model): "not_delivered", "delivered" or "unknown"; nil is
	// unknown. Set only from a host's shipped code or docs, dated.
	SecureInputSchema *Feature `json:"secure_input_schema,omitempty"`
}

// Version is the rules an older range of a host's versions had where they
// differ from its profile's: each rule given replaces the profile's, the
// rest are the profile's.
type Version struct {
	From         string `json:"from"` // the first version these rules hold for
	To           string `json:"to"`   // the last
	Description  *Rule  `json:"description,omitempty"`
	Instructions *Rule  `json:"instructions,omitempty"`
	Notes        string `json:"notes,omitempty"`
}

// ResultRule says what a host hands the model of a tool result. Each rule
// carries its own source and date: result handling changes between host
// versions independently of definitions.
type ResultRule struct {
	// Rule is "cap" (a size cap past which the result is persisted or
	// replaced, Claude Code), "head_tail" (head and tail kept around a
	// marker, Codex), "whole" or "unknown".
	Rule       string `json:"rule"`
	Source     string `json:"source,omitempty"`
	MeasuredOn string `json:"measured_on,omitempty"`
	Sure       string `json:"sure,omitempty"`

	// spill: past a size the result is saved to a file and the model
	// reads a notice with part of it (Gemini CLI, Copilot CLI, OpenCode).
	// MaxChars (UTF-16 units) or MaxBytes/MaxLines is the threshold;
	// AtMost marks a threshold known only as an upper bound (a result
	// under it is "unknown"). Keep is "head_tail" (HeadShare of MaxChars
	// from the start, the rest of MaxChars from the end), "preview"
	// (PreviewChars from the start) or "head_lines" (whole lines from the
	// start within MaxBytes and MaxLines). Wrap is what the host puts
	// around the text before it measures it ("{text}"); OneTextOnly: the
	// rule applies only to a result of one text block.
	MaxChars     int     `json:"max_chars,omitempty"`
	AtMost       bool    `json:"at_most,omitempty"`
	Keep         string  `json:"keep,omitempty"`
	HeadShare    float64 `json:"head_share,omitempty"`
	PreviewChars int     `json:"preview_chars,omitempty"`
	Wrap         string  `json:"wrap,omitempty"`
	OneTextOnly  bool    `json:"one_text_only,omitempty"`
	Marker       string  `json:"marker,omitempty"` // {omitted} {head} {tail} {kb}: the text around what is kept

	// cap
	Count        string `json:"count,omitempty"` // how the host counts tokens: "length/4"
	TokenLimit   int    `json:"token_limit,omitempty"`
	WarnTokens   int    `json:"warn_tokens,omitempty"`
	OverrideEnv  string `json:"override_env,omitempty"`
	PersistChars int    `json:"persist_chars,omitempty"` // past this many characters the result goes to a file
	CharUnit     string `json:"char_unit,omitempty"`     // "utf16", "codepoint" or "byte"
	MetaOverride string `json:"meta_override,omitempty"` // the tools/list _meta key that raises PersistChars
	MetaCeiling  int    `json:"meta_ceiling,omitempty"`  // the most that key can raise it to
	Over         string `json:"over,omitempty"`          // past the cap: "persisted" or "notice"
	PreviewBytes int    `json:"preview_bytes,omitempty"` // what a persisted result's reference shows of it

	// head_tail
	MaxBytes    int    `json:"max_bytes,omitempty"`
	MaxLines    int    `json:"max_lines,omitempty"`
	HeadLines   int    `json:"head_lines,omitempty"`
	TailLines   int    `json:"tail_lines,omitempty"`
	HeadBytes   int    `json:"head_bytes,omitempty"`
	Header      string `json:"header,omitempty"`       // before a cut result; {total} is its line count
	MarkerBytes string `json:"marker_bytes,omitempty"` // {max_bytes}
	MarkerLines string `json:"marker_lines,omitempty"` // {omitted}, {total}

	// Content says, per content block type, "passed", "dropped" or
	// "unknown"; a type not listed is unknown.
	Content map[string]string `json:"content,omitempty"`
	// Prefers is what the model reads when a result has both:
	// "structured", "text" or "unknown".
	Prefers string `json:"prefers,omitempty"`
	Notes   string `json:"notes,omitempty"`
}

// CallPolicy is one client's rule for how long it waits on a tool call,
// as the data file writes it (durations as Go durations: "60s").
type CallPolicy struct {
	Name            string `json:"name"`
	Timeout         string `json:"timeout"`
	ResetOnProgress bool   `json:"reset_on_progress,omitempty"`
	MaxTotal        string `json:"max_total,omitempty"`
	Idle            string `json:"idle,omitempty"`
	Source          string `json:"source"`
	MeasuredOn      string `json:"measured_on"`
	Note            string `json:"note,omitempty"`
}

// NameRule is how a host names a server's tool for the model: a full name
// made from a template, characters outside a set replaced (or refused),
// and a length past which the name does not reach the model as it is.
type NameRule struct {
	// Prefix is the template of the full name: {server} and {tool} are
	// replaced by the config's server name and the tool's.
	Prefix string `json:"prefix"`
	// Allowed is the set of characters a full name may hold, as inside a
	// regular expression's [...].
	Allowed string `json:"allowed"`
	// Replacement takes the place of each character outside Allowed; ""
	// means the host does not replace them: such a name is refused.
	Replacement string `json:"replacement"`
	MaxLen      int    `json:"max_len"` // in characters
	Sure        string `json:"sure,omitempty"`
	// Earlier are the rules reported before this one, each with its own
	// source and date (not applied: the figures use this rule).
	Earlier []NameRule `json:"earlier,omitempty"`
	// OverLimit is what happens to a longer name: "left_out" (the tool is
	// not offered), "rejected" (the request fails) or "shortened" (the
	// model sees a shortened, hashed name).
	OverLimit string `json:"over_limit"`
	Source    string `json:"source"`
	Date      string `json:"date"`
}

// Search is when a host defers tools behind a tool search instead of
// sending their definitions with every request.
type Search struct {
	// Rule is "share_of_context" (once the definitions pass Percent of a
	// context of ContextTokens), "always" or "never".
	Rule          string  `json:"rule"`
	Percent       float64 `json:"percent,omitempty"`
	ContextTokens int     `json:"context_tokens,omitempty"`
	Env           string  `json:"env,omitempty"` // the variable that changes the rule
	Source        string  `json:"source"`
	Date          string  `json:"date"`
}

// Threshold is the definitions' size in tokens past which the host defers
// them; 0 when the rule is not a share.
func (s *Search) Threshold() int {
	if s == nil || s.Rule != "share_of_context" {
		return 0
	}
	return int(s.Percent / 100 * float64(s.ContextTokens))
}

// FullName is the name the host gives tool of server, and whether it
// breaks the host's rule: characters it refuses, or a length over its
// limit.
func (r *NameRule) FullName(server, tool string) (full string, refused, over bool) {
	full = strings.NewReplacer("{server}", server, "{tool}", tool).Replace(r.Prefix)
	re, err := regexp.Compile("[^" + r.Allowed + "]")
	if err == nil && re.MatchString(full) {
		if r.Replacement == "" {
			refused = true
		} else {
			full = re.ReplaceAllLiteralString(full, r.Replacement)
		}
	}
	return full, refused, utf8.RuneCountInString(full) > r.MaxLen
}

// ToolSearchFromEnv applies Claude Code's ENABLE_TOOL_SEARCH, as the host
// would read it, to the hosts whose rule names that variable: auto:N sets
// the share to N percent, auto its default, true always defers and false
// never does. Any other value is an error.
func ToolSearchFromEnv(hosts []Host, lookup func(string) (string, bool)) ([]Host, error) {
	out := append([]Host(nil), hosts...)
	for i, h := range out {
		if h.ToolSearch == nil || h.ToolSearch.Env == "" {
			continue
		}
		v, ok := lookup(h.ToolSearch.Env)
		if !ok || v == "" || v == "auto" {
			continue
		}
		s := *h.ToolSearch
		switch {
		case v == "true":
			s.Rule = "always"
		case v == "false":
			s.Rule = "never"
		case strings.HasPrefix(v, "auto:"):
			n, err := strconv.ParseFloat(strings.TrimPrefix(v, "auto:"), 64)
			if err != nil || n < 0 || n > 100 {
				return nil, fmt.Errorf("%s=%s: want auto, auto:N (N from 0 to 100), true or false", s.Env, v)
			}
			s.Rule, s.Percent = "share_of_context", n
		default:
			return nil, fmt.Errorf("%s=%s: want auto, auto:N (N from 0 to 100), true or false", s.Env, v)
		}
		s.Source += fmt.Sprintf("; %s=%s in this environment", s.Env, v)
		out[i].ToolSearch = &s
	}
	return out, nil
}

type hostsFile struct {
	Hosts        []Host       `json:"hosts"`
	CallPolicies []CallPolicy `json:"call_policies"`
	// OAuth is read from the embedded file only: a --hosts file's rows
	// change what a host delivers, not the audit's host rows.
	OAuth []OAuthRule `json:"oauth"`
	// Skills is read from the embedded file only, as OAuth is.
	Skills []SkillsRule `json:"skills"`
}

// builtin is the embedded file, parsed once per process: every command
// and every server of a run reads the same rows.
var builtin = sync.OnceValue(func() hostsFile {
	var f hostsFile
	if err := json.Unmarshal(hostsJSON, &f); err != nil {
		panic("hosts: embedded hosts.json: " + err.Error())
	}
	return f
})

// KnownPolicies returns the embedded call timeout policies, a copy the
// caller may change.
func KnownPolicies() []CallPolicy { return append([]CallPolicy(nil), builtin().CallPolicies...) }

// Known returns the embedded host profiles, a copy the caller may change
// (a profile's pointer fields are shared: replace them, do not write
// through them, as ToolSearchFromEnv does).
func Known() []Host { return append([]Host(nil), builtin().Hosts...) }

// Load reads a hosts file and merges it into base: a row with a known id
// replaces it, a new id is added.
func Load(path string, base []Host) ([]Host, error) {
	data, err := inputfile.ReadJSON(path, inputfile.MaxConfig, inputfile.JSON)
	if err != nil {
		return nil, err
	}
	var f hostsFile
	if err := json.Unmarshal(data, &f); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field == "" {
			return nil, fmt.Errorf("%s: expected an object with a hosts list, got %s", path, jsonerr.Value(te.Value))
		}
		return nil, fmt.Errorf("%s: %s", path, jsonerr.Explain(err))
	}
	out := append([]Host(nil), base...)
	for _, h := range f.Hosts {
		if err := h.validate(); err != nil {
			return nil, fmt.Errorf("%s: host %q: %v", path, h.ID, err)
		}
		replaced := false
		for i := range out {
			if out[i].ID == h.ID {
				out[i], replaced = h, true
			}
		}
		if !replaced {
			out = append(out, h)
		}
	}
	return out, nil
}

func (h Host) validate() error {
	if h.ID == "" {
		return fmt.Errorf("no id")
	}
	if err := validateRules(h.Description, h.Instructions); err != nil {
		return err
	}
	return h.validateRest()
}

func validateRules(rules ...Rule) error {
	for _, r := range rules {
		switch r.Rule {
		case "whole", "not_delivered", "prepended", "unknown":
		case "cut":
			if r.Limit <= 0 {
				return fmt.Errorf("a cut needs a positive limit")
			}
			if r.Unit != "utf16" && r.Unit != "codepoint" && r.Unit != "byte" {
				return fmt.Errorf("unit %q: want utf16, codepoint or byte", r.Unit)
			}
			if r.Surrogate != "" && r.Surrogate != "split" && r.Surrogate != "whole" {
				return fmt.Errorf("surrogate %q: want split or whole", r.Surrogate)
			}
		default:
			return fmt.Errorf("rule %q: want whole, cut, not_delivered, prepended or unknown", r.Rule)
		}
	}
	return nil
}

func (h Host) validateRest() error {
	if err := h.validateVersions(); err != nil {
		return err
	}
	if r := h.ToolNames; r != nil {
		if r.MaxLen <= 0 || !strings.Contains(r.Prefix, "{tool}") {
			return fmt.Errorf("tool_names: want a prefix with {tool} and a positive max_len")
		}
		if _, err := regexp.Compile("[^" + r.Allowed + "]"); err != nil || r.Allowed == "" {
			return fmt.Errorf("tool_names: allowed %q is not a character set", r.Allowed)
		}
		switch r.OverLimit {
		case "left_out", "rejected", "shortened":
		default:
			return fmt.Errorf("tool_names: over_limit %q: want left_out, rejected or shortened", r.OverLimit)
		}
	}
	if s := h.ToolSearch; s != nil {
		switch s.Rule {
		case "always", "never":
		case "share_of_context":
			if s.Percent < 0 || s.Percent > 100 || s.ContextTokens <= 0 {
				return fmt.Errorf("tool_search: a share needs percent from 0 to 100 and a positive context_tokens")
			}
		default:
			return fmt.Errorf("tool_search: rule %q: want share_of_context, always or never", s.Rule)
		}
	}
	for _, l := range h.ToolLimits {
		if l.Limit <= 0 {
			return fmt.Errorf("tool_limits: a limit must be positive")
		}
		switch l.Scope {
		case "request", "server", "mcp":
		default:
			return fmt.Errorf("tool_limits: scope %q: want request, server or mcp", l.Scope)
		}
		switch l.Over {
		case "refused", "dropped", "grouped", "warned", "unknown":
		default:
			return fmt.Errorf("tool_limits: over %q: want refused, dropped, grouped, warned or unknown", l.Over)
		}
		if l.Builtins < 0 || l.Builtins >= l.Limit && l.Scope == "request" {
			return fmt.Errorf("tool_limits: builtins %d: want 0 up to the limit", l.Builtins)
		}
	}
	for name, f := range map[string]*Feature{"prompts": h.Prompts, "resources": h.Resources, "tool_meta": h.ToolMeta, "secure_input_schema": h.SecureInputSchema} {
		if f == nil {
			continue
		}
		switch f.Rule {
		case "delivered", "not_delivered", "dropped", "passed", "unknown":
		default:
			return fmt.Errorf("%s: rule %q: want delivered, not_delivered, dropped, passed or unknown", name, f.Rule)
		}
	}
	return h.Result.validate()
}

func (r ResultRule) validate() error {
	switch r.Rule {
	case "", "unknown", "whole":
	case "cap":
		if r.PersistChars <= 0 && r.TokenLimit <= 0 {
			return fmt.Errorf("result: a cap needs persist_chars or token_limit")
		}
		if r.Count != "" && r.Count != "length/4" {
			return fmt.Errorf("result: count %q: want length/4 (or none: the limit counts characters)", r.Count)
		}
		if r.Over != "" && r.Over != "persisted" && r.Over != "notice" {
			return fmt.Errorf("result: over %q: want persisted or notice", r.Over)
		}
	case "head_tail":
		if r.MaxBytes <= 0 && r.MaxLines <= 0 {
			return fmt.Errorf("result: a head_tail cut needs max_bytes or max_lines")
		}
	case "spill":
		switch {
		case r.Keep == "head_tail" && (r.MaxChars <= 0 || r.HeadShare < 0 || r.HeadShare > 1):
			return fmt.Errorf("result: a head_tail spill needs max_chars and a head_share from 0 to 1")
		case r.Keep == "preview" && (r.MaxChars <= 0 && r.MaxBytes <= 0 || r.PreviewChars < 0):
			return fmt.Errorf("result: a preview spill needs max_chars or max_bytes")
		case r.Keep == "head_lines" && (r.MaxBytes <= 0 || r.MaxLines <= 0):
			return fmt.Errorf("result: a head_lines spill needs max_bytes and max_lines")
		case r.Keep != "head_tail" && r.Keep != "preview" && r.Keep != "head_lines":
			return fmt.Errorf("result: keep %q: want head_tail, preview or head_lines", r.Keep)
		}
		if r.Wrap != "" && !strings.Contains(r.Wrap, "{text}") {
			return fmt.Errorf("result: wrap %q has no {text}", r.Wrap)
		}
	default:
		return fmt.Errorf("result: rule %q: want whole, cap, head_tail, spill or unknown", r.Rule)
	}
	for t, s := range r.Content {
		if s != "passed" && s != "dropped" && s != "unknown" {
			return fmt.Errorf("result: content %s: %q, want passed, dropped or unknown", t, s)
		}
	}
	return nil
}

// Select picks hosts by id. Each spec is "id" or "id=LIMIT", which
// overrides the host's description cut (as Claude Code's environment
// variable does). "all" adds the strictest-of-each row.
func Select(hosts []Host, specs []string) ([]Host, error) {
	if len(specs) == 0 {
		return append(append([]Host(nil), hosts...), Strictest(hosts)), nil
	}
	var out []Host
	for _, spec := range specs {
		for _, one := range strings.Split(spec, ",") {
			id, limit, hasLimit := strings.Cut(strings.TrimSpace(one), "=")
			if id == "all" {
				out = append(out, Strictest(hosts))
				continue
			}
			id, version, hasVersion := strings.Cut(id, "@")
			h, ok := find(hosts, id)
			if !ok {
				return nil, fmt.Errorf("unknown host %q; known: %s, all", id, ids(hosts))
			}
			if hasVersion {
				var err error
				if h, err = h.AtVersion(version); err != nil {
					return nil, err
				}
			}
			if hasLimit {
				n, err := strconv.Atoi(limit)
				if err != nil || n <= 0 {
					return nil, fmt.Errorf("--host %s: the cut must be a positive number", one)
				}
				h.Description.Rule, h.Description.Limit = "cut", n
				if h.Description.Unit == "" {
					h.Description.Unit = "utf16"
				}
				h.Name += fmt.Sprintf(" (cut %d)", n)
			}
			out = append(out, h)
		}
	}
	return out, nil
}

func find(hosts []Host, id string) (Host, bool) {
	for _, h := range hosts {
		if h.ID == id {
			return h, true
		}
	}
	return Host{}, false
}

func ids(hosts []Host) string {
	s := make([]string, len(hosts))
	for i, h := range hosts {
		s[i] = h.ID
	}
	sort.Strings(s)
	return strings.Join(s, ", ")
}

// Strictest is the "all" row: for each rule, the harshest host's, so that
// what survives it survives every known host.
func Strictest(hosts []Host) Host {
	all := Host{ID: "all", Name: "all (strictest)", Description: Rule{Rule: "whole"}, Instructions: Rule{Rule: "whole"},
		InputSchema: SchemaRule{Rule: "whole"}, OutputSchema: "delivered", Source: "derived from the other rows",
		// Hosts count results in different units (tokens, bytes, lines), so
		// no single row is the strictest.
		Result: ResultRule{Rule: "unknown", Source: "no strictest row for results: hosts count them in different units"}}
	for _, h := range withVersions(hosts) {
		if h.MeasuredOn > all.MeasuredOn {
			all.MeasuredOn = h.MeasuredOn
		}
		if h.Description.Rule == "cut" && (all.Description.Rule != "cut" || h.Description.Limit < all.Description.Limit) {
			d := h.Description.Deferred || all.Description.Deferred
			all.Description = h.Description
			all.Description.Deferred = d
		}
		all.Description.Deferred = all.Description.Deferred || h.Description.Deferred
		all.Instructions = stricterText(all.Instructions, h.Instructions)
		if h.InputSchema.Rule == "drop_property_descriptions" && h.InputSchema.Over > 0 &&
			(all.InputSchema.Rule != "drop_property_descriptions" || h.InputSchema.Over < all.InputSchema.Over) {
			all.InputSchema = h.InputSchema
		}
		if h.OutputSchema != "delivered" {
			all.OutputSchema = "not_delivered"
		}
		if h.InitializeDeadlineMs > 0 && (all.InitializeDeadlineMs == 0 || h.InitializeDeadlineMs < all.InitializeDeadlineMs) {
			all.InitializeDeadlineMs = h.InitializeDeadlineMs
		}
		if h.ResultLimitTokens > 0 && (all.ResultLimitTokens == 0 || h.ResultLimitTokens < all.ResultLimitTokens) {
			all.ResultLimitTokens = h.ResultLimitTokens
		}
	}
	return all
}

// stricterText: not delivered beats a cut, a shorter cut beats a longer
// one, and any cut beats whole.
func stricterText(a, b Rule) Rule {
	rank := func(r Rule) int {
		switch r.Rule {
		case "not_delivered":
			return 0
		case "cut":
			return 1
		}
		return 2
	}
	switch {
	case rank(b) < rank(a):
		return b
	case rank(b) == rank(a) && b.Rule == "cut" && b.Limit < a.Limit:
		return b
	}
	return a
}
