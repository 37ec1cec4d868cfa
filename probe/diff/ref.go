// Package diff compares what a server sends with reference definitions:
// byte for byte, then for meaning, then path by path, with the known
// artefacts of the MCP SDKs recognised and explained.
package diff

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/canon"
	"github.com/mcpprobe/mcpprobe/probe/inputfile"
	"github.com/tidwall/gjson"
)

// Tool is one definition in MCP's shape. Raw is the MCP-shaped bytes:
// the item exactly as received for MCP formats, or rebuilt from the
// original values (each value verbatim) for the others.
type Tool struct {
	Name string
	Raw  []byte
	// FP and SchemaFP are the fingerprints a lock file recorded
	// (Fingerprint, SchemaFingerprint); "" when it recorded none, or with
	// another normalisation: they are then derived from Raw.
	FP, SchemaFP string
}

// Side is one side of a comparison.
type Side struct {
	// Format names where the definitions came from, e.g. "anthropic",
	// "mcp-tools-list-result", "mcpprobe-snapshot", "live".
	Format string
	Label  string // a file name or a target, for people
	// Records is what this side knows. A part it does not record is not
	// compared, and the comparison says so: an Anthropic file says
	// nothing about prompts, which is not the same as "no prompts".
	Records PartSet
	// Tools, Prompts, Resources and Templates are items named by their
	// identifier (name, uri, uriTemplate) in Tool.Name.
	Tools, Prompts, Resources, Templates []Tool
	// Skills are the entries of skills/list, named by uri.
	Skills []Tool
	// Wire is set when Raw holds bytes a server sent, so a byte-for-byte
	// comparison means something.
	Wire            bool
	Instructions    *string
	ServerInfo      []byte // raw JSON, nil if none
	ProtocolVersion string
	Capabilities    []byte // raw JSON, nil if none
}

// Items is the list of a list part.
func (s Side) Items(p Part) []Tool {
	switch p {
	case PartTools:
		return s.Tools
	case PartPrompts:
		return s.Prompts
	case PartResources:
		return s.Resources
	case PartTemplates:
		return s.Templates
	case PartSkills:
		return s.Skills
	}
	return nil
}

// FromCapture is the live side: it records every part.
func FromCapture(c *probe.Capture, label string) Side {
	s := Side{Format: "live", Label: label, Wire: true, Records: AllParts, Instructions: c.Instructions,
		ServerInfo: c.ServerInfo, ProtocolVersion: c.ProtocolVersion, Capabilities: c.Capabilities}
	s.Tools = named(c.Tools.Items, PartTools)
	s.Prompts = named(c.Prompts.Items, PartPrompts)
	s.Resources = named(c.Resources.Items, PartResources)
	s.Templates = named(c.Templates.Items, PartTemplates)
	if c.Skills == nil {
		s.Records &^= bit(PartSkills)
	} else {
		s.Skills = named(c.Skills.List.Items, PartSkills)
	}
	return s
}

// named pairs each item as received with its identifier.
func named(raws [][]byte, p Part) []Tool {
	ident, _, _ := p.key()
	var out []Tool
	for _, raw := range raws {
		out = append(out, Tool{Name: gjson.GetBytes(raw, ident).String(), Raw: raw})
	}
	return out
}

// LoadPath reads a reference: a JSON file in any known format, or a
// directory written by `wire --save`.
func LoadPath(path string) (Side, error) {
	// A symlink is refused, to a directory as to a file (inputfile).
	st, err := os.Lstat(path)
	if err != nil {
		return Side{}, err
	}
	if st.IsDir() {
		return loadSaveDir(path)
	}
	data, err := inputfile.ReadJSON(path, inputfile.MaxReference, inputfile.JSON)
	if err != nil {
		return Side{}, err
	}
	s, err := Load(data)
	if err != nil {
		return Side{}, fmt.Errorf("%s: %w", path, err)
	}
	s.Label = path
	return s, nil
}

func loadSaveDir(dir string) (Side, error) {
	pages, _ := filepath.Glob(filepath.Join(dir, "*-tools-list.*.json"))
	if len(pages) == 0 {
		return Side{}, fmt.Errorf("%s holds no *-tools-list.N.json pages (written by mcpprobe wire --save)", dir)
	}
	sort.Strings(pages)
	// The directory's handshake page holds the session's values, but
	// reading them back means redoing the negotiation's reading of it;
	// diff reads the tools, and says it compared nothing else.
	s := Side{Format: "mcpprobe-save", Label: dir, Wire: true, Records: PartSet(0).With(PartTools)}
	for _, p := range pages {
		data, err := inputfile.ReadJSON(p, inputfile.MaxReference, inputfile.JSON)
		if err != nil {
			return Side{}, err
		}
		for _, it := range gjson.GetBytes(data, "result.tools").Array() {
			s.Tools = append(s.Tools, Tool{Name: it.Get("name").String(), Raw: rawOf(data, it)})
		}
	}
	return s, nil
}

func rawOf(src []byte, v gjson.Result) []byte {
	if v.Index > 0 && v.Index+len(v.Raw) <= len(src) {
		return src[v.Index : v.Index+len(v.Raw)]
	}
	return []byte(v.Raw)
}

// ErrUnknownFormat is returned for JSON that is no known reference.
var ErrUnknownFormat = errors.New("not a known reference format: want an MCP tools/list result or response, an array of MCP tools, Anthropic or OpenAI tool definitions, an mcpprobe snapshot, or `mcpprobe wire --json` output")

// Load detects a reference's format and maps it to MCP's shape.
func Load(data []byte) (Side, error) {
	data = bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if !gjson.ValidBytes(data) {
		return Side{}, errors.New("not valid JSON")
	}
	v := gjson.ParseBytes(data)
	// The --json envelope (mcpprobe/result/v1): the capture is the wire
	// section of wire and report, the lock file the snapshot section.
	if v.IsObject() && v.Get("schema").Exists() && v.Get("command").Exists() {
		var inner gjson.Result
		switch v.Get("command").String() {
		case "wire":
			inner = v.Get("wire")
		case "report":
			inner = v.Get("report.wire")
		case "snapshot":
			inner = v.Get("snapshot")
		}
		if !inner.IsObject() {
			return Side{}, fmt.Errorf("mcpprobe %s --json output holds no definitions: only wire, report and snapshot output does", v.Get("command").String())
		}
		if inner.Get("mcpprobe_snapshot").Exists() {
			return loadSnapshot(data, inner)
		}
		return loadWireJSON(data, inner, v.Get("protocol_version"))
	}
	switch {
	case v.IsObject() && v.Get("mcpprobe_snapshot").Exists():
		return loadSnapshot(data, v)
	case v.IsObject() && v.Get("jsonrpc").Exists() && v.Get("result.tools").IsArray():
		s, err := items(data, v.Get("result.tools"))
		s.Format, s.Wire = "jsonrpc-response", true
		return s, err
	case v.IsObject() && v.Get("mcpprobe_version").Exists() && v.Get("tools").IsArray():
		// wire --json before the envelope: the capture at the top level.
		return loadWireJSON(data, v, v.Get("protocol_version"))
	case v.IsObject() && v.Get("tools").IsArray():
		s, err := items(data, v.Get("tools"))
		if s.Format == "mcp-tools" {
			s.Format, s.Wire = "mcp-tools-list-result", true
		} else {
			s.Format += " (in a tools object)"
		}
		return s, err
	case v.IsArray():
		return items(data, v)
	}
	return Side{}, ErrUnknownFormat
}

// loadWireJSON reads the capture object of wire --json, and the
// envelope's protocol version. Each part is recorded when its member is
// there: older output lacks some.
func loadWireJSON(data []byte, v, protocol gjson.Result) (Side, error) {
	s, err := items(data, v.Get("tools"))
	exactItems(s.Tools, "name", v.Get("tools_b64"))
	s.Format, s.Wire = "mcpprobe-wire-json", true
	s.Records = PartSet(0).With(PartTools)
	readMeta(&s, data, v, protocol)
	for _, l := range []struct {
		p   Part
		key string
		to  *[]Tool
	}{{PartPrompts, "prompts", &s.Prompts}, {PartResources, "resources", &s.Resources}, {PartTemplates, "resource_templates", &s.Templates}} {
		if arr := v.Get(l.key); arr.IsArray() {
			s.Records = s.Records.With(l.p)
			ident, _, _ := l.p.key()
			for _, it := range arr.Array() {
				*l.to = append(*l.to, Tool{Name: it.Get(ident).String(), Raw: rawOf(data, it)})
			}
			exactItems(*l.to, ident, v.Get(l.key+"_b64"))
		}
	}
	return s, err
}

// readMeta reads the session's values that a wire --json capture and a
// snapshot share, each where its member is present (null included: a
// server that sent no serverInfo is recorded as sending none).
func readMeta(s *Side, data []byte, v, protocol gjson.Result) {
	if in := v.Get("instructions"); in.Exists() {
		s.Records = s.Records.With(PartInstructions)
		if in.Type == gjson.String {
			str := in.String()
			if exact, ok := b64(v.Get("instructions_b64")); ok {
				str = string(exact)
			}
			s.Instructions = &str
		}
	}
	if si := v.Get("server_info"); si.Exists() {
		s.Records = s.Records.With(PartServerName, PartServerVersion, PartServerInfo)
		s.ServerInfo = rawOrNil(data, si)
	}
	if caps := v.Get("capabilities"); caps.Exists() {
		s.Records = s.Records.With(PartCapabilities)
		s.Capabilities = rawOrNil(data, caps)
	}
	if protocol.Type == gjson.String || protocol.Type == gjson.Null && protocol.Exists() {
		s.Records = s.Records.With(PartProtocol)
		s.ProtocolVersion = protocol.String()
	}
}

// b64 reads a _b64 member: the exact bytes of a value that was not UTF-8
// (written beside it, which shows each such byte as U+FFFD).
func b64(v gjson.Result) ([]byte, bool) {
	if v.Type != gjson.String {
		return nil, false
	}
	b, err := base64.StdEncoding.DecodeString(v.String())
	return b, err == nil
}

// exactItems puts back the exact bytes of the items a _b64 member (index
// to base64) holds, in items read from --json.
func exactItems(items []Tool, ident string, m gjson.Result) {
	m.ForEach(func(k, v gjson.Result) bool {
		i, err := strconv.Atoi(k.String())
		if exact, ok := b64(v); ok && err == nil && i >= 0 && i < len(items) {
			items[i] = Tool{Name: gjson.GetBytes(exact, ident).String(), Raw: exact}
		}
		return true
	})
}

func rawOrNil(src []byte, v gjson.Result) []byte {
	if !v.Exists() || v.Type == gjson.Null {
		return nil
	}
	return rawOf(src, v)
}

// items maps an array of tool definitions, detecting their dialect from
// the first one.
func items(src []byte, arr gjson.Result) (Side, error) {
	list := arr.Array()
	s := Side{Format: "mcp-tools", Wire: true, Records: PartSet(0).With(PartTools)}
	if len(list) == 0 {
		return s, nil
	}
	first := list[0]
	switch {
	case first.Get("inputSchema").Exists():
		s.Format = "mcp-tools"
	case first.Get("input_schema").Exists():
		s.Format, s.Wire = "anthropic", false
	case first.Get("type").String() == "function" && first.Get("function").IsObject():
		s.Format, s.Wire = "openai-chat-completions", false
	case first.Get("type").String() == "function" && first.Get("parameters").Exists():
		s.Format, s.Wire = "openai-responses", false
	case first.Get("name").Exists():
		s.Format = "mcp-tools" // a tool without a schema is still MCP-shaped
	default:
		return Side{}, ErrUnknownFormat
	}
	for i, it := range list {
		var t Tool
		switch s.Format {
		case "mcp-tools":
			t = Tool{Raw: rawOf(src, it)}
		case "anthropic":
			t = Tool{Raw: rebuild(src, it, map[string]string{"input_schema": "inputSchema"}, "cache_control", "type")}
		case "openai-chat-completions":
			fn := it.Get("function")
			t = Tool{Raw: rebuild(src, fn, map[string]string{"parameters": "inputSchema"}, "strict")}
		case "openai-responses":
			t = Tool{Raw: rebuild(src, it, map[string]string{"parameters": "inputSchema"}, "strict", "type")}
		}
		t.Name = gjson.GetBytes(t.Raw, "name").String()
		if t.Name == "" {
			return Side{}, fmt.Errorf("tool %d of the %s reference has no name", i+1, s.Format)
		}
		s.Tools = append(s.Tools, t)
	}
	return s, nil
}

// rebuild writes an object in MCP's shape: keys renamed as mapped, keys
// of the other dialect dropped, every value copied verbatim.
func rebuild(src []byte, obj gjson.Result, rename map[string]string, drop ...string) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	obj.ForEach(func(k, v gjson.Result) bool {
		key := k.String()
		for _, d := range drop {
			if key == d {
				return true
			}
		}
		if to, ok := rename[key]; ok {
			key = to
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.Write(canon.String(key))
		b.WriteByte(':')
		b.Write(rawOf(src, v))
		return true
	})
	b.WriteByte('}')
	return b.Bytes()
}

// loadSnapshot reads a lock file. A part is recorded when its member is
// there: snapshots before capabilities were recorded have none, and an
// edited lock may lack more.
func loadSnapshot(data []byte, v gjson.Result) (Side, error) {
	s := Side{Format: "mcpprobe-snapshot", Wire: true}
	// Fingerprints are read only when written with today's normalisation.
	fps := strings.HasPrefix(v.Get("fingerprint_normalisation").String(), FingerprintVersion+" ")
	for _, l := range []struct {
		p   Part
		key string
		to  *[]Tool
	}{{PartTools, "tools", &s.Tools}, {PartPrompts, "prompts", &s.Prompts}, {PartResources, "resources", &s.Resources}, {PartTemplates, "resource_templates", &s.Templates},
		{PartSkills, "skills", &s.Skills}} {
		arr := v.Get(l.key)
		if !arr.IsArray() {
			continue
		}
		s.Records = s.Records.With(l.p)
		ident, _, _ := l.p.key()
		for _, t := range arr.Array() {
			raw := t.Get("raw").String()
			name := t.Get(ident).String()
			if exact, ok := b64(t.Get("raw_b64")); ok {
				// The name too: written as text, it lost what raw_b64 keeps.
				raw, name = string(exact), gjson.GetBytes(exact, ident).String()
			}
			if raw == "" {
				raw = t.Get("definition").Raw
				s.Wire = false
			}
			it := Tool{Name: name, Raw: []byte(raw)}
			if fps && l.p == PartTools {
				it.FP, it.SchemaFP = t.Get("fingerprint").String(), t.Get("schema_fingerprint").String()
			}
			*l.to = append(*l.to, it)
		}
	}
	readMeta(&s, data, v, v.Get("protocol_version"))
	return s, nil
}

// FormatName is a reference format for people.
func FormatName(f string) string {
	names := map[string]string{
		"anthropic":               "Anthropic tool definitions (input_schema)",
		"openai-chat-completions": "OpenAI function tools (Chat Completions)",
		"openai-responses":        "OpenAI function tools (Responses API)",
		"mcp-tools":               "an array of MCP tools",
		"mcp-tools-list-result":   "an MCP tools/list result",
		"jsonrpc-response":        "a JSON-RPC tools/list response",
		"mcpprobe-snapshot":       "an mcpprobe snapshot",
		"mcpprobe-save":           "an mcpprobe wire --save directory",
		"mcpprobe-wire-json":      "mcpprobe wire --json output",
		"live":                    "a live server",
	}
	if n, ok := names[strings.TrimSuffix(f, " (in a tools object)")]; ok {
		return n
	}
	return f
}
