package survey

import (
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/mcpprobe/mcpprobe/faults"
	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/bench"
	"github.com/mcpprobe/mcpprobe/probe/budget"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/probe/malformed"
	"github.com/mcpprobe/mcpprobe/probe/wire"
	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/tidwall/gjson"
)

// Causes of a failed record: why a server could not be probed.
const (
	CauseEntry        = "invalid_entry" // the entry cannot be read as a server
	CauseMissingValue = "missing_value" // it needs a value (an env var, an argument) it was not given
	CauseUnsupported  = "unsupported"   // a package kind or transport survey does not start
	CauseRefused      = "refused"       // --sandbox given for a URL entry
	CauseSpawn        = "spawn_failed"  // the command could not be started
	CauseCrashed      = "crashed"       // the server's output ended (it exited) before it answered
	CauseTimedOut     = "timed_out"     // the per-server wall-clock bound passed
	CauseNoAnswer     = "no_answer"     // a request got no answer within its timeout
	CauseTooMuch      = "too_much"      // past --max-bytes
	CauseHTTP         = "http_error"    // an HTTP error, or no HTTP connection
	CauseProtocol     = "protocol_error"
)

// CauseMeaning is each cause in words, for a census's readers.
var CauseMeaning = map[string]string{
	CauseEntry:        "the entry cannot be read as a server",
	CauseMissingValue: "the entry needs a value (an environment variable, an argument) it does not give",
	CauseUnsupported:  "a package kind or transport survey does not start",
	CauseRefused:      "a URL entry under --sandbox",
	CauseSpawn:        "the command could not be started",
	CauseCrashed:      "the server exited before it answered",
	CauseTimedOut:     "the per-server wall-clock bound passed",
	CauseNoAnswer:     "a request got no answer within its timeout",
	CauseTooMuch:      "the server sent more than --max-bytes",
	CauseHTTP:         "an HTTP error, or no HTTP connection",
	CauseProtocol:     "any other failure of the handshake or the lists (the record's failure says which)",
}

// Causes lists every cause, in the order a census shows them.
var Causes = []string{CauseSpawn, CauseCrashed, CauseTimedOut, CauseNoAnswer, CauseProtocol, CauseHTTP, CauseTooMuch,
	CauseMissingValue, CauseUnsupported, CauseRefused, CauseEntry}

// MaxToolsKept bounds the per-tool figures a record keeps (description
// lengths): a server with 10,000 tools is counted whole, and its first
// MaxToolsKept tools' lengths are kept for the census's distributions.
const MaxToolsKept = 1000

// MaxFindingsPerCode bounds the findings a record lists of one code;
// FindingCounts has them all.
const MaxFindingsPerCode = 20

// maxRaw bounds serverInfo and capabilities as kept: a server controls
// them.
const maxRaw = 4096

// Failure is a server that could not be probed: its cause and the three
// parts of its explanation, as exit code 3 gives them.
type Failure struct {
	Cause    string `json:"cause"`
	What     string `json:"what"`
	Received string `json:"received"`
	Try      string `json:"try"`
}

// Record is what survey learns of one server; Section is the part of it
// written under "survey" in its JSON line (see line.go).
type Record struct {
	ID, Source string
	Digest     string
	Shard      *Shard // nil for a run of the whole input
	Target     string // as a person would type it, env values hidden
	Protocol   string
	Findings   []findings.Finding // at most MaxFindingsPerCode per code
	// FindingCounts counts every finding by code, past the cap too.
	FindingCounts map[string]int
	Failure       *Failure

	// Timings: when the probe started and how long the whole took; the
	// capture's own are in Wire.
	Started time.Time
	Elapsed time.Duration

	Wire   *WireSummary
	Budget *BudgetSummary
	// The --with sections, when asked; an error of one is kept as its
	// text in WithErrors, and the record is not a failure for it.
	Bench      *bench.Result
	Faults     *faults.ScenarioResult
	FaultsNot  string
	Malformed  *malformed.Result
	WithErrors map[string]string

	// Secrets are the entry's values that must never appear.
	Secrets []string
}

// WireSummary is what a record keeps of a capture: counts and sizes, never
// the raw pages (wire --config FILE NAME, or wire ./server, has them).
type WireSummary struct {
	Transport string  `json:"transport"`
	Era       *string `json:"era"` // nil when the capture has none
	// ServerInfo and Capabilities are raw, as the server sent them, when
	// at most maxRaw bytes; nil (null) past it.
	ServerInfo      json.RawMessage `json:"server_info"`
	Capabilities    json.RawMessage `json:"capabilities"`
	InstructionsLen *int            `json:"instructions_len"` // UTF-16 units; nil for none
	Lists           []ListSummary   `json:"lists"`
	Tools           ToolsSummary    `json:"tools"`
	NoiseLines      int             `json:"stdout_noise_lines"` // stdout lines that were not JSON-RPC
	StderrLines     int             `json:"stderr_lines"`
	SDK             SDKArtefacts    `json:"sdk_artefacts"`
	// Timings are written in the section's timings, beside the run's.
	Timings probe.Timings `json:"-"`
}

// ToolsSummary is the tools list counted.
type ToolsSummary struct {
	Count            int   `json:"count"`
	Kept             int   `json:"kept"`              // len(DescriptionUTF16)
	DefinitionBytes  int   `json:"definition_bytes"`  // every tool object as received
	DescriptionUTF16 []int `json:"description_utf16"` // the first MaxToolsKept tools', in wire order
}

// ListSummary is one list's size.
type ListSummary struct {
	Method string  `json:"method"`
	Asked  bool    `json:"asked"`
	Pages  int     `json:"pages"`
	Items  int     `json:"items"`
	Bytes  int     `json:"bytes"`
	Error  *string `json:"error"`
}

// SDKArtefacts count tools that carry what an SDK adds on the way out
// (the diff command explains each; lint's sdk-bounds finds the third).
type SDKArtefacts struct {
	SchemaDraft07   int `json:"schema_draft07"`      // "$schema": draft-07 in the input schema (TypeScript SDK's McpServer)
	TaskSupport     int `json:"task_support"`        // execution.taskSupport (TypeScript SDK's McpServer)
	SafeIntegerZod  int `json:"safe_integer_bounds"` // an integer bounded by ±9007199254740991 (zod)
	ClosedObjects   int `json:"closed_objects"`      // additionalProperties: false at the top (Go SDK inference, zod strict)
	ToolsWithOutput int `json:"output_schema"`       // an outputSchema
}

// BudgetSummary is what a record keeps of the budget: per host, counts.
type BudgetSummary struct {
	Hosts []HostSummary `json:"hosts"`
	// FilteredOut are the tools a host config entry's include/exclude
	// lists leave out: not in the hosts' Tokens.
	FilteredOut []string `json:"filtered_out"`
	Tokens      *int     `json:"tokens"` // o200k estimate of every tool definition; nil when not counted
}

// HostSummary is one host's delivery of the server, counted.
type HostSummary struct {
	ID               string `json:"host"`
	Tools            int    `json:"tools"`
	Cut              int    `json:"cut"`      // tools whose description the host cuts
	LostUnits        int    `json:"lost_len"` // description units lost to cuts, in the host's unit
	SchemaDrops      int    `json:"schema_drops"`
	Instructions     string `json:"instructions"` // the instructions' delivery mode
	InstructionsLost int    `json:"instructions_lost_len"`
	// Tokens is what the host pays on every request, as it delivers the
	// definitions (budget.HostTokens, an o200k_base estimate); nil when
	// not counted. IfLoaded: it defers them behind a tool search.
	Tokens   *int `json:"tokens"`
	IfLoaded bool `json:"if_loaded"`
}

func summarizeWire(c *probe.Capture) *WireSummary {
	s := &WireSummary{Transport: c.Transport, Era: nonBlank(c.Era), Timings: c.Timings, Lists: []ListSummary{}}
	s.Tools.DescriptionUTF16 = []int{}
	if len(c.ServerInfo) <= maxRaw {
		s.ServerInfo = c.ServerInfo
	}
	if len(c.Capabilities) <= maxRaw {
		s.Capabilities = c.Capabilities
	}
	if c.Instructions != nil {
		n := wire.UTF16Len(*c.Instructions)
		s.InstructionsLen = &n
	}
	for _, l := range []probe.List{c.Tools, c.Prompts, c.Resources, c.Templates} {
		ls := ListSummary{Method: l.Method, Asked: l.Asked, Pages: len(l.Pages), Items: len(l.Items), Error: nonBlank(l.Error)}
		for _, p := range l.Pages {
			ls.Bytes += len(p.Raw)
		}
		s.Lists = append(s.Lists, ls)
	}
	s.Tools.Count = len(c.Tools.Items)
	for i, raw := range c.Tools.Items {
		s.Tools.DefinitionBytes += len(raw)
		r := gjson.GetManyBytes(raw, "description", "inputSchema", "execution.taskSupport", "outputSchema")
		if i < MaxToolsKept {
			s.Tools.DescriptionUTF16 = append(s.Tools.DescriptionUTF16, wire.UTF16Len(r[0].String()))
		}
		in := r[1]
		if in.Get("$schema").String() == "http://json-schema.org/draft-07/schema#" {
			s.SDK.SchemaDraft07++
		}
		if r[2].Exists() {
			s.SDK.TaskSupport++
		}
		if in.Get("additionalProperties").Type == gjson.False {
			s.SDK.ClosedObjects++
		}
		if safeBounds(in, 0) {
			s.SDK.SafeIntegerZod++
		}
		if r[3].Exists() {
			s.SDK.ToolsWithOutput++
		}
	}
	if c.Trace != nil {
		for _, f := range c.Trace.Frames() {
			switch f.Dir {
			case transport.DirNoise:
				s.NoiseLines++
			case transport.DirStderr:
				s.StderrLines++
			}
		}
	}
	s.Tools.Kept = len(s.Tools.DescriptionUTF16)
	return s
}

// nonBlank is s, or nil when it holds nothing but spaces: written null.
func nonBlank(s string) *string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return &s
}

// safeBounds: a property anywhere in the schema bounded by zod's
// ±Number.MAX_SAFE_INTEGER. Depth is bounded: a server controls it.
func safeBounds(v gjson.Result, depth int) bool {
	if depth > 32 || !v.IsObject() {
		return false
	}
	if v.Get("minimum").Raw == "-9007199254740991" || v.Get("maximum").Raw == "9007199254740991" {
		return true
	}
	found := false
	for _, k := range []string{"properties", "items", "anyOf", "oneOf", "allOf"} {
		v.Get(k).ForEach(func(_, sub gjson.Result) bool {
			found = found || safeBounds(sub, depth+1)
			return !found
		})
		if k == "items" && !found {
			found = safeBounds(v.Get(k), depth+1)
		}
	}
	return found
}

func summarizeBudget(r *budget.Result) *BudgetSummary {
	s := &BudgetSummary{Hosts: []HostSummary{}, FilteredOut: r.FilteredOut}
	if s.FilteredOut == nil {
		s.FilteredOut = []string{}
	}
	paid := map[string]budget.HostTokens{}
	for _, h := range r.HostTokens {
		paid[h.Host] = h
	}
	for _, hr := range r.Delivery.Hosts {
		h := HostSummary{ID: hr.Host.ID, Instructions: hr.Instructions.Mode, InstructionsLost: hr.Instructions.Lost}
		if p, ok := paid[hr.Host.ID]; ok {
			n := p.Tokens
			h.Tokens, h.IfLoaded = &n, p.Deferred
		}
		for _, t := range hr.Tools {
			// A tool the entry's lists leave out never reaches the host.
			if !r.Filter.Keeps(t.Name) {
				continue
			}
			h.Tools++
			if t.Description.Mode == "cut" {
				h.Cut++
				h.LostUnits += t.Description.Lost
			}
			if t.Schema.Dropped {
				h.SchemaDrops++
			}
		}
		s.Hosts = append(s.Hosts, h)
	}
	if r.Tokens != nil {
		n := r.Tokens.Total
		s.Tokens = &n
	}
	return s
}

// setFindings keeps every count and at most MaxFindingsPerCode findings of
// each code, in the order given.
func (r *Record) setFindings(fs []findings.Finding) {
	findings.Sort(fs)
	r.FindingCounts = map[string]int{}
	r.Findings = nil
	for _, f := range fs {
		n := max(f.Count, 1)
		name := f.Code.String()
		before := r.FindingCounts[name]
		r.FindingCounts[name] += n
		if before < MaxFindingsPerCode {
			r.Findings = append(r.Findings, f)
		}
	}
}

// CountCodes is FindingCounts in code order, for a stable rendering.
func (r *Record) CountCodes() []string {
	keys := make([]string, 0, len(r.FindingCounts))
	for k := range r.FindingCounts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// DefaultMaxBytes is survey's --max-bytes when not given: what one
// server may send is held until its record is written, so this times
// --jobs bounds the survey's memory (launch.DefaultMaxBytes, 256 MiB, is
// for one server probed alone). A tools list near it is far past any
// real one.
const DefaultMaxBytes = 8 << 20

// causeOf names the cause of a probe's failure. deadline is whether
// the per-server bound had passed when it failed.
func causeOf(err error, deadline bool) string {
	var se *launch.StartError
	var te *probe.TimeoutError
	var ce *probe.ClosedError
	var he *transport.HTTPError
	var ne *transport.ConnError
	switch {
	case errors.As(err, &se):
		return CauseSpawn
	case errors.Is(err, transport.ErrTooMuch):
		return CauseTooMuch
	case deadline:
		return CauseTimedOut
	case errors.As(err, &he), errors.As(err, &ne):
		return CauseHTTP
	case errors.As(err, &te):
		return CauseNoAnswer
	case errors.As(err, &ce):
		return CauseCrashed
	}
	return CauseProtocol
}

// failureOf is an error's three parts, with its cause.
func failureOf(err error, cause string) *Failure {
	var fe *probe.FatalError
	f := &Failure{Cause: cause, What: err.Error()}
	if errors.As(err, &fe) {
		f.What, f.Received, f.Try = fe.What, fe.Received, fe.Try
	}
	if f.Received == "" {
		f.Received = "nothing more than the line above says"
	}
	if f.Try == "" {
		f.Try = "probe it alone (mcpprobe wire) with --trace FILE to see every frame"
	}
	return f
}
