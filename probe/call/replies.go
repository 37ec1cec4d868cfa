package call

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/mrtr"
	"github.com/tidwall/gjson"
)

// Replies say how mcpprobe answers what the server asks during a call.
// Each one enabled is a client capability declared; none enabled is
// mcpprobe's default, which declares none and answers -32601.
type Replies struct {
	// Elicit is "", "decline", "cancel" or "accept"; ElicitContent is
	// accept's content, a raw JSON object.
	Elicit        string
	ElicitContent []byte
	// ElicitDefaults, without Elicit, declares elicitation and accepts
	// each elicitation/create as a host's form submitted as shown: the
	// requested schema's defaults, built values for required fields
	// without one (mrtr.FormContent), as input_required is answered.
	ElicitDefaults bool
	// Sampling is the text every sampling/createMessage is answered with;
	// nil declares no sampling.
	Sampling *string
	// Roots are the URIs roots/list is answered with; none declares no
	// roots.
	Roots []string
}

// ParseElicit reads --elicit decline|cancel|accept=JSON.
func ParseElicit(s string) (action string, content []byte, err error) {
	switch {
	case s == "decline" || s == "cancel":
		return s, nil, nil
	case s == "accept":
		return "accept", []byte("{}"), nil
	case strings.HasPrefix(s, "accept="):
		c := []byte(strings.TrimPrefix(s, "accept="))
		v := bytes.TrimSpace(c)
		if !json.Valid(v) || len(v) == 0 || v[0] != '{' {
			return "", nil, probe.Optionf("--elicit accept=%s: the content must be a JSON object", string(c))
		}
		return "accept", c, nil
	}
	return "", nil, probe.Optionf("--elicit %q: want decline, cancel or accept=JSON", s)
}

// Capabilities is the client capabilities object, raw JSON: exactly what
// the replies enable.
func (r Replies) Capabilities() string {
	var parts []string
	if r.Elicit != "" || r.ElicitDefaults {
		parts = append(parts, `"elicitation":{}`)
	}
	if len(r.Roots) > 0 {
		parts = append(parts, `"roots":{}`)
	}
	if r.Sampling != nil {
		parts = append(parts, `"sampling":{}`)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// Answerer answers the requests the replies enable; nil when none is.
func (r Replies) Answerer() probe.Answerer {
	if r.Elicit == "" && !r.ElicitDefaults && r.Sampling == nil && len(r.Roots) == 0 {
		return nil
	}
	return func(method string, params []byte) ([]byte, bool) {
		switch {
		case method == "elicitation/create" && r.Elicit == "" && r.ElicitDefaults:
			return []byte(`{"action":"accept","content":` + string(mrtr.FormContent([]byte(gjson.GetBytes(params, "requestedSchema").Raw))) + `}`), true
		case method == "elicitation/create" && r.Elicit != "":
			if r.Elicit == "accept" {
				return []byte(`{"action":"accept","content":` + string(r.ElicitContent) + `}`), true
			}
			return []byte(`{"action":` + quote(r.Elicit) + `}`), true
		case method == "sampling/createMessage" && r.Sampling != nil:
			return []byte(`{"role":"assistant","content":{"type":"text","text":` + quote(*r.Sampling) + `},"model":"mcpprobe","stopReason":"endTurn"}`), true
		case method == "roots/list" && len(r.Roots) > 0:
			items := make([]string, len(r.Roots))
			for i, u := range r.Roots {
				items[i] = `{"uri":` + quote(u) + `}`
			}
			return []byte(`{"roots":[` + strings.Join(items, ",") + `]}`), true
		}
		return nil, false
	}
}

// FormAnswered says how an elicitation was answered without --elicit:
// the words input_required answers use.
const FormAnswered = "accepted with values built from the requested schema"

// DescribeRequest is Describe with what was sent where mcpprobe built
// it: an elicitation answered from the requested schema names the
// content, which the user never saw.
func (r Replies) DescribeRequest(method string, raw []byte) string {
	d := r.Describe(method)
	if method == "elicitation/create" && r.Elicit == "" && r.ElicitDefaults {
		d += " (its defaults, as a host's form shows them: " + mrtr.ClauseFormDefaults + "): " + string(mrtr.FormContent([]byte(gjson.GetBytes(raw, "params.requestedSchema").Raw)))
	}
	return d
}

// Describe says what mcpprobe answered a server request of this method.
func (r Replies) Describe(method string) string {
	switch {
	case method == "ping":
		return "answered (ping)"
	case method == "elicitation/create" && r.Elicit != "":
		return "answered " + r.Elicit + " (--elicit)"
	case method == "elicitation/create" && r.ElicitDefaults:
		return FormAnswered
	case method == "sampling/createMessage" && r.Sampling != nil:
		return "answered with the --sampling-reply text"
	case method == "roots/list" && len(r.Roots) > 0:
		return fmt.Sprintf("answered with %d root(s) (--root)", len(r.Roots))
	}
	return "refused with -32601: the capability was not declared"
}
