// Package skillfile verifies one file of a skill (the Skills extension,
// SEP-2640) against the skills/list entry that lists it: its bytes as a
// resources/read result carries them, its size and digest, and a
// SKILL.md's frontmatter. It sits below both `check` (which judges a
// server by every listed file) and `call` (which loads a skill as a host
// does), so that both verify by one rule and neither imports the other.
package skillfile

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"

	"github.com/mcpprobe/mcpprobe/internal/quote"
	"github.com/tidwall/gjson"
)

// MaxBytes bounds a file's decoded content: the server controls it.
const MaxBytes = 16 << 20

// Content is the bytes of uri in a resources/read result: text as its
// UTF-8 bytes, a blob decoded from base64 (the contents entry whose uri is
// uri, else the first). With no bytes, why says why.
func Content(result []byte, uri string) (b []byte, why string) {
	contents := gjson.GetBytes(result, "contents").Array()
	var c gjson.Result
	for _, cc := range contents {
		if cc.Get("uri").String() == uri {
			c = cc
			break
		}
	}
	if !c.Exists() && len(contents) > 0 {
		c = contents[0]
	}
	switch t, bl := c.Get("text"), c.Get("blob"); {
	case t.Type == gjson.String:
		if len(t.Raw) > 6*MaxBytes+2 {
			return nil, "text past the size mcpprobe verifies"
		}
		b = []byte(t.String())
	case bl.Type == gjson.String:
		if len(bl.Raw) > MaxBytes/3*4+8 {
			return nil, "blob past the size mcpprobe verifies"
		}
		d, err := base64.StdEncoding.DecodeString(bl.String())
		if err != nil {
			return nil, "blob is not base64: " + err.Error()
		}
		b = d
	default:
		return nil, "no contents[] entry with text or blob"
	}
	if len(b) > MaxBytes {
		return nil, "content past the size mcpprobe verifies"
	}
	return b, ""
}

// Digest is the SEP's digest of b: sha256: and 64 lowercase hex digits.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Listed is what a skills/list entry says of one file.
type Listed struct {
	URI     string
	Digest  string // "" for a "dynamic" skill's SKILL.md, which has none
	Size    int64
	HasSize bool
	// Frontmatter is the entry's, for the skill's own SKILL.md; nil for
	// any other file.
	Frontmatter []byte
}

// Clause names the text each kind of mismatch breaks.
const (
	ClauseDigest      = "SEP-2640 Integrity and verification (MUST): a host that retrieves a file listed in a skill's resources MUST verify it against that entry's digest and MUST NOT use unverified content"
	ClauseSize        = "SEP-2640 Integrity and verification (MUST): a read whose byte length differs from the entry's size is a verification failure, as a digest mismatch is"
	ClauseFrontmatter = "SEP-2640 Frontmatter (MUST): a host compares a SKILL.md's YAML frontmatter field by field with the entry's and MUST NOT load the skill on any discrepancy"
)

// Mismatch is one way a file differs from its listing.
type Mismatch struct {
	What   string // size, digest or frontmatter
	Detail string
	Clause string
}

// Verify compares content with what the listing says of it, in the order
// a host checks: size, then digest, then (a SKILL.md) frontmatter. Every
// mismatch is returned; none means the content may be used.
func Verify(l Listed, content []byte) []Mismatch {
	var out []Mismatch
	if l.HasSize && int64(len(content)) != l.Size {
		out = append(out, Mismatch{"size", fmt.Sprintf("%d bytes served, the listing publishes size %d", len(content), l.Size), ClauseSize})
	}
	if l.Digest != "" {
		if got := Digest(content); got != l.Digest {
			out = append(out, Mismatch{"digest", fmt.Sprintf("the %d bytes served hash to %s, the listing publishes %s", len(content), got, bound(l.Digest)), ClauseDigest})
		}
	}
	if l.Frontmatter != nil {
		fm, err := ParseFrontmatter(content)
		switch {
		case err != nil:
			out = append(out, Mismatch{"frontmatter", err.Error(), ClauseFrontmatter})
		default:
			if d := FrontmatterDiff(fm, l.Frontmatter); len(d) > 0 {
				out = append(out, Mismatch{"frontmatter", "the SKILL.md served differs from the listed frontmatter: " + few(d), ClauseFrontmatter})
			}
		}
	}
	return out
}

// maxShown bounds a server's value quoted in a message.
const maxShown = 300

func bound(s string) string { return quote.Bound(s, maxShown) }

// few joins the first five lines, counting the rest.
func few(lines []string) string {
	out := ""
	for i, l := range lines {
		if i == 5 {
			return out + fmt.Sprintf(" (and %d more)", len(lines)-5)
		}
		if i > 0 {
			out += "; "
		}
		out += l
	}
	return out
}
