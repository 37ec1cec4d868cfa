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
		entries(&b, l.ident, l.items)
	}
	b.WriteString("\n}\n")
	return b.Bytes()
}

func entries(b *bytes.Buffer, ident string, items [][]byte) {
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
		b.WriteString(",\n      \"sha256\": \"" + Hash(e.raw) + "\",\n      \"definition\": ")
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
	var out bytes.Buffer
	if err := json.Indent(&out, canon.JSON(raw), indent, "  "); err != nil {
		return []byte("null")
	}
	return out.Bytes()
}
