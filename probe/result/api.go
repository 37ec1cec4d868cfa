// Package result reads what a server answered to tools/call,
// resources/read or prompts/get, from its raw bytes, and works out what
// each AI host delivers of it to the model and whether a long call
// survives each host's timeout policy. Host rules are data (the host
// profiles of probe/hosts), never code.
//
// This file is the contract between the call engine (probe/call) and this
// package: fields and functions here may grow, not change.
package result

import (
	"time"

	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
)

// Kind says which request a result answers.
type Kind string

const (
	KindTool     Kind = "tool"     // tools/call
	KindResource Kind = "resource" // resources/read
	KindPrompt   Kind = "prompt"   // prompts/get
)

// Input is everything Analyse reads. Raw slices are the server's bytes,
// never re-encoded.
type Input struct {
	Kind    Kind
	Result  []byte // the raw "result" member of the response
	Tool    []byte // the raw tool definition from tools/list, nil when unknown
	Version string // negotiated protocol version: expectations follow it
}

// Block is one content block (or one resource content of resources/read,
// or one prompt message's content).
type Block struct {
	Index    int    `json:"index"`
	Type     string `json:"type"` // text, image, audio, resource_link, resource, or as sent
	MIMEType string `json:"mime_type,omitempty"`
	URI      string `json:"uri,omitempty"`
	Bytes    int    `json:"bytes"`           // text bytes, or decoded bytes of base64 data
	Chars    int    `json:"chars,omitempty"` // text only: code points
	// Base64 is "valid", "invalid: …", or "" when the block carries none.
	Base64 string `json:"base64,omitempty"`
	// Sniffed is the MIME type the decoded bytes look like, "" when unknown.
	Sniffed string `json:"sniffed,omitempty"`
}

// Violation is one way structuredContent fails the tool's outputSchema.
type Violation struct {
	Path    string `json:"path"` // JSON pointer into structuredContent
	Message string `json:"message"`
}

// Structured is what was seen of structuredContent.
type Structured struct {
	Present    bool        `json:"present"`
	Bytes      int         `json:"bytes"`
	HasSchema  bool        `json:"has_schema"` // the tool declares outputSchema
	Valid      bool        `json:"valid"`
	Violations []Violation `json:"violations,omitempty"`
	// InText: the same JSON also appears in a text block, for older clients.
	InText bool `json:"in_text"`
	// Unchecked says why structuredContent was not validated (the schema
	// does not compile, refers outside itself, or is past a bound); ""
	// when it was, or when there is no schema.
	Unchecked string `json:"unchecked,omitempty"`
}

// Analysis is a result read from its raw bytes.
type Analysis struct {
	Kind       Kind        `json:"kind"`
	Bytes      int         `json:"bytes"` // size of the raw result member
	IsError    bool        `json:"is_error"`
	Blocks     []Block     `json:"blocks"`
	Structured *Structured `json:"structured,omitempty"`
	Meta       []byte      `json:"-"` // raw _meta, nil when absent
	Findings   []findings.Finding

	// ResultType is a 2026-07-28 result's resultType ("complete",
	// "input_required", …), "" when absent. Only a complete result (or one
	// without the field) is held to its method's shape; "task" is a
	// task-augmented call's creation result, which carries none either.
	ResultType string `json:"result_type,omitempty"`
	// Unreadable: the result nests too deep to walk, or is no JSON
	// object; nothing of it was analysed, and no host's delivery of it is
	// worked out.
	Unreadable bool `json:"-"`
}

// Analyse reads a result. It never fails: what cannot be read is a finding.
func Analyse(in Input) Analysis { return analyse(in) }

// Delivery is what one host hands the model of a result.
type Delivery struct {
	Host       string `json:"host"` // host id
	HostName   string `json:"host_name"`
	MeasuredOn string `json:"measured_on"`
	Source     string `json:"source"`
	// Outcome is "whole", "truncated", "persisted" (written to a file and
	// replaced by a reference), "notice" (replaced by an error/notice),
	// "dropped" or "unknown" (no rule known for this host).
	Outcome   string `json:"outcome"`
	Unit      string `json:"unit"`      // what the host counts: tokens, chars, bytes, lines
	Size      int    `json:"size"`      // the result in that unit
	Limit     int    `json:"limit"`     // the host's cap in that unit, 0 when none
	Delivered int    `json:"delivered"` // what reaches the model, in that unit
	Lost      int    `json:"lost"`
	Note      string `json:"note,omitempty"` // e.g. the warning threshold crossed, the override used
	// View is the text the model would read, as far as the rule is known.
	View string `json:"-"`
}

// Deliver applies each host's result rule to a result.
func Deliver(hosts []hosts.Host, in Input, a Analysis) []Delivery { return deliver(hosts, in, a) }

// Policy is one client's rule for how long it waits on a call.
type Policy struct {
	Name            string        `json:"name"`
	Timeout         time.Duration `json:"timeout_ns"` // 0: none
	ResetOnProgress bool          `json:"reset_on_progress"`
	MaxTotal        time.Duration `json:"max_total_ns"` // 0: none
	Idle            time.Duration `json:"idle_ns,omitempty"`
	Source          string        `json:"source,omitempty"`
	MeasuredOn      string        `json:"measured_on,omitempty"`
	Note            string        `json:"note,omitempty"`

	// MaxTotalOnProgress: MaxTotal is checked only when a progress
	// notification arrives (the TypeScript SDK's maxTotalTimeout), so a
	// call can outlive it by up to one Timeout.
	MaxTotalOnProgress bool `json:"max_total_on_progress,omitempty"`
}

// ParsePolicy reads --policy NAME=timeout:30s,reset-on-progress,max-total:2m.
func ParsePolicy(s string) (Policy, error) { return parsePolicy(s) }

// Policies are the known hosts' and SDKs' timeout policies, from the data file.
func Policies() []Policy { return policies() }

// Timeline is what the probe saw of one call over time.
type Timeline struct {
	Duration  time.Duration   // request sent → response (or the probe gave up)
	Completed bool            // a response arrived
	Progress  []time.Duration // each notifications/progress, since the request
	// KnownUntil, when set, is where what the probe kept ends: past it a
	// flood was counted, not kept, and Progress says nothing of it.
	KnownUntil time.Duration
}

// Verdict says whether a call like this one survives a policy.
type Verdict struct {
	Policy  Policy        `json:"policy"`
	Outcome string        `json:"outcome"`         // "survives", "would time out", "inconclusive"
	At      time.Duration `json:"at_ns,omitempty"` // when the policy gives up
	Why     string        `json:"why"`
}

// Judge applies a policy to a timeline.
func Judge(p Policy, t Timeline) Verdict { return judge(p, t) }
