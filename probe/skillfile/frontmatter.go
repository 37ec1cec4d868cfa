package skillfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/canon"
	"go.yaml.in/yaml/v3"
)

// maxFrontmatter bounds the YAML a SKILL.md's frontmatter may hold before
// it is parsed: the server controls it, and YAML aliases can multiply it.
const maxFrontmatter = 64 << 10

// ParseFrontmatter reads the YAML frontmatter a SKILL.md begins with (a
// byte order mark, then "---", the YAML, "---"), as JSON: the form a
// skills/list entry carries it in. An error says what is wrong with it.
func ParseFrontmatter(md []byte) (json.RawMessage, error) {
	md = bytes.TrimPrefix(md, []byte("\xef\xbb\xbf"))
	rest, ok := cutLine(md, "---")
	if !ok {
		return nil, errors.New("SKILL.md does not begin with a --- line of YAML frontmatter")
	}
	end := -1
	for i := 0; i < len(rest) && i <= maxFrontmatter; {
		line, next := rest[i:], len(rest)
		if j := bytes.IndexByte(line, '\n'); j >= 0 {
			line, next = line[:j], i+j+1
		}
		if string(bytes.TrimRight(line, " \t\r")) == "---" {
			end = i
			break
		}
		i = next
	}
	switch {
	case end < 0 && len(rest) > maxFrontmatter:
		return nil, fmt.Errorf("SKILL.md's frontmatter does not end within %d KiB", maxFrontmatter>>10)
	case end < 0:
		return nil, errors.New("SKILL.md's frontmatter has no closing --- line")
	}
	var v any
	if err := yaml.Unmarshal(rest[:end], &v); err != nil {
		return nil, fmt.Errorf("SKILL.md's frontmatter is not YAML: %v", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("SKILL.md's frontmatter is not a YAML mapping")
	}
	j, err := json.Marshal(jsonable(m, 0))
	if err != nil {
		return nil, fmt.Errorf("SKILL.md's frontmatter has no JSON form: %v", err)
	}
	return j, nil
}

// cutLine cuts a first line equal to want (trailing blanks and \r aside).
func cutLine(b []byte, want string) ([]byte, bool) {
	line, rest, ok := bytes.Cut(b, []byte("\n"))
	if !ok || string(bytes.TrimRight(line, " \t\r")) != want {
		return nil, false
	}
	return rest, true
}

// jsonable turns what yaml decoded into what encoding/json writes as
// JSON renders YAML: timestamps as RFC 3339 text, non-string keys as
// their text, depth bounded.
func jsonable(v any, depth int) any {
	if depth > 64 {
		return nil
	}
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = jsonable(x, depth+1)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[fmt.Sprint(k)] = jsonable(x, depth+1)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = jsonable(x, depth+1)
		}
		return out
	case time.Time:
		return v.Format(time.RFC3339Nano)
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return fmt.Sprint(v)
		}
	}
	return v
}

// FrontmatterDiff compares a SKILL.md's frontmatter (as JSON) with an
// entry's, field by field, for meaning (key order and number spelling
// aside): one line per field that differs, in field order.
func FrontmatterDiff(file, entry []byte) []string {
	var a, b map[string]json.RawMessage
	if json.Unmarshal(file, &a) != nil || json.Unmarshal(entry, &b) != nil {
		return []string{"a frontmatter is not a JSON object"}
	}
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []string
	for _, k := range keys {
		x, y := a[k], b[k]
		switch {
		case x == nil:
			out = append(out, fmt.Sprintf("%s: listed %s, absent from the file", k, bound(string(y))))
		case y == nil:
			out = append(out, fmt.Sprintf("%s: in the file (%s), absent from the listing", k, bound(string(x))))
		case !bytes.Equal(canon.JSON(x), canon.JSON(y)):
			out = append(out, fmt.Sprintf("%s: file %s, listed %s", k, bound(string(x)), bound(string(y))))
		}
	}
	return out
}
