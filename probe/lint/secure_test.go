package lint

import "testing"

// secureTool is a well-described tool with the given secureInputSchema
// member (raw JSON, "" for none).
func secureTool(name, input, secure string) string {
	s := `{"name":"` + name + `","description":"Queries the database.","inputSchema":` + input
	if secure != "" {
		s += `,"secureInputSchema":` + secure
	}
	return s + `}`
}

func TestSecureParams(t *testing.T) {
	cases := []struct {
		name  string
		tools []string
		wants []want
	}{
		{"no secure schema", []string{secureTool("q", okSchema, "")}, nil},
		{"optional secure params", []string{secureTool("q", okSchema, `{"type":"object","properties":{"tenant":{"type":"string"}}}`)}, nil},
		{"required secure params", []string{secureTool("q", okSchema, `{"type":"object","properties":{"tenant":{"type":"string"}},"required":["tenant"]}`)},
			[]want{{"secure-required", "q", "info", []string{`"tenant"`, "io.modelcontextprotocol/secure-params"}}}},
		{"overlap", []string{secureTool("q", okSchema, `{"type":"object","properties":{"q":{"type":"string"}}}`)},
			[]want{{"secure-overlap", "q", "error", []string{`"q" in both`, "MUST NOT", "§3.3"}}}},
		{"not an object", []string{secureTool("q", okSchema, `"tenant"`)},
			[]want{{"secure-schema-shape", "q", "error", []string{"is a string", "§3.2"}}}},
		{"type string", []string{secureTool("q", okSchema, `{"type":"string"}`)},
			[]want{{"secure-schema-shape", "q", "error", []string{`"string"`}}}},
		{"hostile names are quoted", []string{secureTool("q", `{"type":"object","properties":{"a\u001b[2Jb":{"description":"x"}}}`, `{"type":"object","properties":{"a\u001b[2Jb":{}},"required":["a\u001b[2Jb"]}`)},
			[]want{{"hidden-chars", "q", "error", nil}, {"secure-overlap", "q", "error", []string{`"a\x1b[2Jb"`}}, {"secure-required", "q", "info", nil}}},
		{"every rule, in order", []string{secureTool("q", okSchema, `{"type":"array","properties":{"q":{}},"required":["q"]}`)},
			[]want{{"secure-schema-shape", "q", "error", nil}, {"secure-overlap", "q", "error", nil}, {"secure-required", "q", "info", nil}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			check(t, Check(capture(c.tools, nil, nil)), c.wants)
		})
	}
}
