package jsonout

import (
	_ "embed"

	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/transport"
)

// SchemaID names the envelope's version. It changes only when a key is
// removed or changes meaning; adding keys keeps it.
const SchemaID = "mcpprobe/result/v1"

// ResultSchema is the JSON Schema every command's --json output validates
// against (reports/result.schema.json, documented in the README).
//
//go:embed result.schema.json
var ResultSchema []byte

// Envelope is what every command's JSON starts with: the same keys in the
// same order, whatever the command, then the command's own section under
// a key named after it.
type Envelope struct {
	Version         string // mcpprobe's
	Command         string
	Target          string // secrets already hidden
	ProtocolVersion string // negotiated; "" when none was
	Findings        []findings.Finding
	Gates           []string // --fail-on as given, split
	Tripped         []findings.Tripped
	Error           *Failure // nil for a run that finished
}

// Failure is why a run ended without its whole result: the three parts
// of the message on stderr, and the exit code. A --json run that cannot
// probe its target, or is interrupted, still prints one envelope, so that
// what reads it (jq in CI) gets JSON that says what happened.
type Failure struct {
	ExitCode int    // 3, 4, or a stop signal's 129, 130, 131, 141, 143
	What     string // what happened
	Received string // what came from the server; a line per thing
	Try      string // what to do about it
	// Redacted says a secret was hidden in these texts before they came
	// here, so that the envelope that carries them says so.
	Redacted bool
}

// JSON writes the envelope followed by the command's section, verbatim.
// A nil section is written as null (a run that stopped before it had one).
func (e Envelope) JSON(section []byte) []byte {
	o := &Object{}
	o.Set("schema", SchemaID)
	o.Set("mcpprobe_version", e.Version)
	o.Set("command", e.Command)
	o.Set("target", e.Target)
	o.Set("protocol_version", NullIfEmpty(e.ProtocolVersion))
	o.Raw("findings", findingsJSON(e.Findings))
	gates := e.Gates
	if gates == nil {
		gates = []string{}
	}
	// Each tripped gate names the codes behind its count, so the output
	// itself explains a non-zero exit.
	tripped := make([][]byte, 0, len(e.Tripped))
	for _, t := range e.Tripped {
		codes := []string{}
		seen := map[findings.Code]bool{}
		for _, f := range t.Findings {
			if !seen[f.Code] {
				seen[f.Code] = true
				codes = append(codes, f.Code.String())
			}
		}
		tripped = append(tripped, (&Object{}).Set("gate", t.Gate).Set("count", t.Count).Set("codes", codes).Bytes())
	}
	o.Raw("fail_on", (&Object{}).Set("gates", gates).Raw("tripped", RawArray(tripped)).Bytes())
	if f := e.Error; f != nil {
		o.Raw("error", (&Object{}).Set("exit_code", f.ExitCode).Set("what", f.What).
			Set("received", f.Received).Set("try", f.Try).Bytes())
	}
	o.Raw(e.Command, section)
	// Members encoded here are escaped already (marshal); what is left is
	// the server's bytes, embedded verbatim. A control or invisible
	// character among them is written as its \u escape too, which is the
	// same JSON value but not the same bytes: "escaped" says so.
	out, escaped := transport.EscapeInvisible(o.Bytes())
	if escaped {
		out = append(out[:len(out)-1], `,"escaped":true}`...)
	}
	return append(out, '\n')
}

// findingsJSON is a list of findings, each kind repeated past
// findings.FoldAt folded into one with its count and a few examples.
func findingsJSON(fs []findings.Finding) []byte {
	fs = findings.Fold(fs)
	out := make([][]byte, 0, len(fs))
	for _, f := range fs {
		fo := (&Object{}).Set("severity", f.Severity).Set("code", f.Code).Set("message", f.Message)
		if f.Tool != "" {
			fo.Set("tool", f.Tool)
		}
		if f.Count > 1 {
			fo.Set("count", f.Count).Set("examples", f.Examples())
		}
		out = append(out, fo.Bytes())
	}
	return RawArray(out)
}
