package skillfile

import (
	"encoding/base64"
	"strings"
	"testing"
)

// The suite's sep-2640 client scenarios serve these bytes: the verify
// cases below are theirs.
const skillMD = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n"

const listedFM = `{"name":"pdf-processing","description":"Extract, fill, and assemble PDF documents"}`

func TestVerify(t *testing.T) {
	md := Listed{URI: "skill://pdf-processing/SKILL.md", Digest: Digest([]byte(skillMD)), Size: int64(len(skillMD)), HasSize: true, Frontmatter: []byte(listedFM)}
	other := Listed{URI: "skill://pdf-processing/references/FORMS.md", Digest: Digest([]byte("Supporting content.\n")), Size: 20, HasSize: true}
	for _, tc := range []struct {
		name    string
		l       Listed
		content string
		want    string // the mismatches' What, in order
		detail  string // words in the first detail
	}{
		{"as listed", md, skillMD, "", ""},
		{"a supporting file as listed", other, "Supporting content.\n", "", ""},
		{"digest: same length, other bytes", md, strings.Replace(skillMD, "Skill body.", "Evil body!!", 1), "digest", "hash to sha256:"},
		{"size: extra bytes", md, skillMD + "extra bytes the entry did not account for\n", "size,digest", "bytes served, the listing publishes size"},
		{"frontmatter: another description, digest and size of the bytes served", Listed{URI: md.URI, Frontmatter: md.Frontmatter,
			Digest: Digest([]byte(strings.Replace(skillMD, "Extract, fill, and assemble PDF documents", "Exfiltrate credentials", 1))), Size: int64(len(skillMD)) - 19, HasSize: true},
			strings.Replace(skillMD, "Extract, fill, and assemble PDF documents", "Exfiltrate credentials", 1), "frontmatter", `description: file "Exfiltrate credentials", listed "Extract`},
		{"frontmatter: none in the file", Listed{URI: md.URI, Frontmatter: md.Frontmatter}, "# no frontmatter\n", "frontmatter", "does not begin"},
		{"frontmatter: the entry has none", Listed{URI: md.URI, Frontmatter: []byte("null")}, skillMD, "frontmatter", "absent from the listing"},
		{"dynamic: no digest, no size", Listed{URI: md.URI, Frontmatter: md.Frontmatter}, skillMD, "", ""},
		{"a supporting file is no SKILL.md", other, "---\nname: x\n---\n", "size,digest", ""},
		{"a digest in another form", Listed{URI: other.URI, Digest: "SHA256:" + strings.ToUpper(Digest([]byte("x"))[7:])}, "x", "digest", "the listing publishes SHA256:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms := Verify(tc.l, []byte(tc.content))
			var what []string
			for _, m := range ms {
				what = append(what, m.What)
				if !strings.HasPrefix(m.Clause, "SEP-2640 ") {
					t.Errorf("%s cites %q", m.What, m.Clause)
				}
			}
			if got := strings.Join(what, ","); got != tc.want {
				t.Fatalf("mismatches %q, want %q: %+v", got, tc.want, ms)
			}
			if tc.detail != "" && !strings.Contains(ms[0].Detail, tc.detail) {
				t.Errorf("detail %q lacks %q", ms[0].Detail, tc.detail)
			}
		})
	}
}

func TestContentHostile(t *testing.T) {
	const uri = "skill://a/SKILL.md"
	for _, tc := range []struct {
		name, result, want, why string
	}{
		{"text", `{"contents":[{"uri":"skill://a/SKILL.md","text":"hé\n"}]}`, "hé\n", ""},
		{"the entry for the uri, not the first", `{"contents":[{"uri":"skill://a/other","text":"no"},{"uri":"skill://a/SKILL.md","text":"yes"}]}`, "yes", ""},
		{"the first when none names the uri", `{"contents":[{"uri":"skill://x","text":"first"}]}`, "first", ""},
		{"blob", `{"contents":[{"uri":"skill://a/SKILL.md","blob":"` + base64.StdEncoding.EncodeToString([]byte{0, 1, 2}) + `"}]}`, "\x00\x01\x02", ""},
		{"blob not base64", `{"contents":[{"blob":"%%%"}]}`, "", "not base64"},
		{"no contents", `{}`, "", "no contents[] entry"},
		{"contents not an array", `{"contents":"x"}`, "", "no contents[] entry"},
		{"text not a string", `{"contents":[{"text":5}]}`, "", "no contents[] entry"},
		{"text past the bound", `{"contents":[{"text":"` + strings.Repeat("a", MaxBytes+1) + `"}]}`, "", "past the size"},
		{"empty text is content", `{"contents":[{"text":""}]}`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, why := Content([]byte(tc.result), uri)
			if string(b) != tc.want || !strings.Contains(why, tc.why) || (tc.why == "") != (why == "") {
				t.Errorf("got %q, %q; want %q, %q", b, why, tc.want, tc.why)
			}
			if tc.why == "" && b == nil {
				t.Error("content without bytes: nil means none")
			}
		})
	}
}
