package reports

import (
	_ "embed"

	"github.com/mcpprobe/mcpprobe/probe"
)

// SchemaID names the envelope's version. It changes only when a key is
// removed or changes meaning; adding keys keeps it.
const SchemaID = "mcpprobe/result/v1"

// ResultSchema is the JSON Schema every command's --json output validates
// against (reports/result.schema.json, documented in the README).
//
//go:embed result.schema.json
var ResultSchema []byte

// Tripped is one --fail-on gate that tripped, with what tripped it, so the
// output itself explains a non-zero exit.
type Tripped struct {
	Gate  string   `json:"gate"`
	Count int      `json:"count"`
	Codes []string `json:"codes"` // finding codes or category names behind the count
}

// Envelope is what every command's JSON starts with: the same keys in the
// same order, whatever the command, then the command's own section under
// a key named after it.
type Envelope struct {
	Version         string // mcpprobe's
	Command         string
	Target          string // secrets already hidden
	ProtocolVersion string // negotiated; "" when none was
	Findings        []probe.Finding
	Gates           []string // --fail-on as given, split
	Tripped         []Tripped
}

// JSON writes the envelope followed by the command's section, verbatim.
// A nil section is written as null (a run that stopped before it had one).
func (e Envelope) JSON(section []byte) []byte {
	o := &Object{}
	o.Set("schema", SchemaID)
	o.Set("mcpprobe_version", e.Version)
	o.Set("command", e.Command)
	o.Set("target", e.Target)
	o.Set("protocol_version", nullIfEmpty(e.ProtocolVersion))
	o.Raw("findings", findingsJSON(e.Findings))
	gates := e.Gates
	if gates == nil {
		gates = []string{}
	}
	tripped := e.Tripped
	if tripped == nil {
		tripped = []Tripped{}
	}
	for i := range tripped {
		if tripped[i].Codes == nil {
			tripped[i].Codes = []string{}
		}
	}
	o.Raw("fail_on", (&Object{}).Set("gates", gates).Set("tripped", tripped).Bytes())
	o.Raw(e.Command, section)
	return append(o.Bytes(), '\n')
}
