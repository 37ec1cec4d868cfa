package diff

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"sort"
	"unicode/utf8"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/canon"
	"github.com/tidwall/gjson"
)

// Snapshot renders a capture as a lock file: stable (sorted, pretty,
// nothing that changes between runs of the same server), with each
// definition's SHA-256 over its canonical JSON, and the raw bytes kept
// alongside so a byte-level comparison stays possible. Every member is a
// part diff compares (a lock without one, such as one written before
// capabilities were recorded, has that part "not compared").
func Snapshot(c *probe.Capture) []byte {
	var b bytes.Buffer
	b.WriteString("{\n  \"mcpprobe_snapshot\": 1,\n")
	b.WriteString("  \"protocol_version\": ")
	b.Write(canon.String(c.ProtocolVersion))
	b.WriteString(",\n  \"server_info\": ")
	b.Write(pretty(c.ServerInfo, "  "))
	b.WriteString(",\n  \"capabilities\": ")
	b.Write(pretty(c.Capabilities, "  "))
	b.WriteString(",\n  \"instructions\": ")
	if c.Instructions != nil {
		b.Write(canon.String(*c.Instructions))
		if !utf8.ValidString(*c.Instructions) {
			b.WriteString(",\n  \"instructions_b64\": \"" + base64.StdEncoding.EncodeToString([]byte(*c.Instructions)) + "\"")
		}
	} else {
		b.WriteString("null")
	}
	b.WriteString(",\n  \"fingerprint_normalisation\": ")
	b.Write(canon.String(FingerprintNormalisation))
	for _, l := range []struct {
		key, ident string
		items      [][]byte
	}{
		{"tools", "name", c.Tools.Items},
		{"prompts", "name", c.Prompts.Items},
		{"resources", "uri", c.Resources.Items},
		{"resource_templates", "uriTemplate", c.Templates.Items},
	} {
		b.WriteString(",\n  \"" + l.key + "\": ")
		entries(&b, l.ident, l.items, l.key == "tools")
	}
	if c.Skills != nil {
		// Only for a server that declares the Skills extension, so that
		// every other lock stays as it was.
		b.WriteString(",\n  \"skills\": ")
		entries(&b, "uri", c.Skills.List.Items, false)
	}
	b.WriteString("\n}\n")
	return b.Bytes()
}

func entries(b *bytes.Buffer, ident string, items [][]byte, fingerprints bool) {
	type entry struct {
		id  string
		raw []byte
	}
	var es []entry
	for _, it := range items {
		es = append(es, entry{gjson.GetBytes(it, ident).String(), it})
	}
	sort.SliceStable(es, func(i, j int) bool { return es[i].id < es[j].id })
	if len(es) == 0 {
		b.WriteString("[]")
		return
	}
	b.WriteString("[")
	for i, e := range es {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n    {\n      \"" + ident + "\": ")
		b.Write(canon.String(e.id))
		b.WriteString(",\n      \"sha256\": \"" + Hash(e.raw) + "\",\n")
		if fingerprints {
			// Tools only: what a rename keeps (derived, FingerprintNormalisation).
			b.WriteString("      \"fingerprint\": \"" + Fingerprint(e.raw) + "\",\n")
			if sf := SchemaFingerprint(e.raw); sf != "" {
				b.WriteString("      \"schema_fingerprint\": \"" + sf + "\",\n")
			}
		}
		b.WriteString("      \"definition\": ")
		b.Write(pretty(e.raw, "      "))
		b.WriteString(",\n      \"raw\": ")
		b.Write(canon.String(string(e.raw)))
		if !utf8.Valid(e.raw) {
			// raw shows a byte that is not UTF-8 as U+FFFD, so that the
			// file is UTF-8 for every tool; raw_b64 keeps the bytes.
			b.WriteString(",\n      \"raw_b64\": \"" + base64.StdEncoding.EncodeToString(e.raw) + "\"")
		}
		b.WriteString("\n    }")
	}
	b.WriteString("\n  ]")
}

// Hash is the SHA-256 of a definition's canonical JSON: the whole
// definition, so a changed schema is a changed tool.
func Hash(raw []byte) string {
	sum := sha256.Sum256(canon.JSON(raw))
	return hex.EncodeToString(sum[:])
}

func pretty(raw []byte, indent string) []byte {
	if len(raw) == 0 {
		return []byte("null")
	}
	c := canon.JSON(raw)
	if !json.Valid(c) {
		return []byte("null")
	}
	return indentJSON(c, indent, maxIndentDepth)
}

// maxIndentDepth is how deep a lock file indents: json.Indent writes a
// line for every value, indented two spaces a level, so a definition
// nested 100,000 levels became 20 GB of spaces. Deeper values are
// written compact on their parent's line.
const maxIndentDepth = 32

// indentJSON is json.Indent(dst, src, prefix, "  ") for compact src (a
// canonical form), but for containers deeper than maxDepth, which are
// written as they are.
func indentJSON(src []byte, prefix string, maxDepth int) []byte {
	var b bytes.Buffer
	b.Grow(len(src) * 2)
	newline := func(depth int) {
		b.WriteByte('\n')
		b.WriteString(prefix)
		for i := 0; i < depth; i++ {
			b.WriteString("  ")
		}
	}
	depth := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '"':
			j := i + 1
			for ; j < len(src) && src[j] != '"'; j++ {
				if src[j] == '\\' {
					j++
				}
			}
			b.Write(src[i : j+1])
			i = j
		case (c == '{' || c == '[') && depth >= maxDepth:
			// Compact from here to the container's end.
			end := containerEnd(src, i)
			b.Write(src[i:end])
			i = end - 1
		case c == '{' || c == '[':
			b.WriteByte(c)
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				b.WriteByte(src[i+1])
				i++
				continue
			}
			depth++
			newline(depth)
		case c == '}' || c == ']':
			depth--
			newline(depth)
			b.WriteByte(c)
		case c == ',':
			b.WriteByte(c)
			newline(depth)
		case c == ':':
			b.WriteString(": ")
		default:
			b.WriteByte(c)
		}
	}
	return b.Bytes()
}

// containerEnd is the end of the array or object that opens at i in
// compact JSON.
func containerEnd(src []byte, i int) int {
	depth := 0
	for ; i < len(src); i++ {
		switch src[i] {
		case '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return len(src)
}
