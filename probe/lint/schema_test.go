package lint

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// The schema walk follows $ref as a validator does: a definition counts
// where it is referenced, once, under the path through the reference; an
// unreferenced one counts for nothing; cycles and depth end the walk.
func TestSchemaRefs(t *testing.T) {
	var unused []string
	for i := range 21 {
		unused = append(unused, fmt.Sprintf(`"D%d":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}}}`, i))
	}
	// A chain of definitions, each referring to the next twice: walked
	// naively it is 2^20 schemas; each definition costs two levels of depth.
	var chain []string
	for i := range 20 {
		chain = append(chain, fmt.Sprintf(`"C%d":{"type":"object","properties":{"l":{"$ref":"#/$defs/C%d","description":"L."},"r":{"$ref":"#/$defs/C%d","description":"R."},"x%d":{"type":"string"}}}`, i, i+1, i+1, i))
	}
	chain = append(chain, `"C20":{"type":"string"}`)
	deep := `{"type":"string"}`
	for range 500 {
		deep = `{"type":"object","description":"D.","properties":{"n":` + deep + `}}`
	}
	tests := []struct {
		name   string
		schema string
		want   []want
	}{
		{name: "21 unreferenced $defs, no properties",
			schema: `{"type":"object","properties":{},"$defs":{` + strings.Join(unused, ",") + `}}`},
		{name: "unreferenced definitions (draft-07)",
			schema: `{"type":"object","properties":{"q":{"type":"string","description":"Q."}},"definitions":{"X":{"properties":{"a":{"type":"string"}}}}}`},
		{name: "a referenced definition, named through the reference",
			schema: `{"type":"object","properties":{"order":{"$ref":"#/$defs/Order","description":"The order."}},"$defs":{"Order":{"type":"object","properties":{"id":{"type":"string"}}},"Unused":{"properties":{"z":{}}}}}`,
			want:   []want{{"param-no-description", "t", "warning", []string{"inputSchema.properties.order.$ref→$defs/Order.properties.id has no description;"}}}},
		{name: "definitions, and a ref chain to a description",
			schema: `{"type":"object","properties":{"a":{"$ref":"#/definitions/A"}},"definitions":{"A":{"$ref":"#/definitions/B"},"B":{"type":"string","description":"A B."}}}`},
		{name: "a definition referenced twice is reported once, where first referenced",
			schema: `{"type":"object","properties":{"from":{"$ref":"#/$defs/Addr","description":"F."},"to":{"$ref":"#/$defs/Addr","description":"T."}},"$defs":{"Addr":{"type":"object","properties":{"street":{"type":"string"}}}}}`,
			want:   []want{{"param-no-description", "t", "warning", []string{"inputSchema.properties.from.$ref→$defs/Addr.properties.street has no description;"}}}},
		{name: "a cycle through a definition",
			schema: `{"type":"object","properties":{"head":{"$ref":"#/$defs/Node","description":"H."}},"$defs":{"Node":{"type":"object","properties":{"next":{"$ref":"#/$defs/Node","description":"N."},"v":{"type":"string"}}}}}`,
			want:   []want{{"param-no-description", "t", "warning", []string{"inputSchema.properties.head.$ref→$defs/Node.properties.v has no description;"}}}},
		{name: "a reference to the root",
			schema: `{"type":"object","properties":{"child":{"$ref":"#"},"v":{"type":"string","description":"V."}}}`,
			want:   []want{{"param-no-description", "t", "warning", []string{"inputSchema.properties.child has no description;"}}}},
		{name: "mutual recursion",
			schema: `{"type":"object","properties":{"a":{"$ref":"#/$defs/A","description":"A."}},"$defs":{"A":{"properties":{"b":{"$ref":"#/$defs/B","description":"B."}}},"B":{"properties":{"a":{"$ref":"#/$defs/A","description":"A."},"k":{"type":"string"}}}}}`,
			want:   []want{{"param-no-description", "t", "warning", []string{"inputSchema.properties.a.$ref→$defs/A.properties.b.$ref→$defs/B.properties.k has no description;"}}}},
		{name: "a doubling chain of 20 definitions, each walked once, long paths elided",
			schema: `{"type":"object","properties":{"root":{"$ref":"#/$defs/C0","description":"R."}},"$defs":{` + strings.Join(chain, ",") + `}}`,
			want: []want{{"param-no-description", "t", "warning", []string{"20 parameters have no description: inputSchema.properties.root.$ref→$defs/C0…$ref→$defs/C19.properties.x19, inputSchema.properties.root.$ref→$defs/C0…$ref→$defs/C18.properties.x18,",
				"inputSchema.properties.root.$ref→$defs/C0…$ref→$defs/C10.properties.x10, and 10 more;"}}}},
		{name: "three references are shown whole",
			schema: `{"type":"object","properties":{"a":{"$ref":"#/$defs/A","description":"A."}},"$defs":{"A":{"properties":{"b":{"$ref":"#/$defs/B","description":"B."}}},"B":{"properties":{"c":{"$ref":"#/$defs/C","description":"C."}}},"C":{"properties":{"k":{"type":"string"}}}}}`,
			want:   []want{{"param-no-description", "t", "warning", []string{"inputSchema.properties.a.$ref→$defs/A.properties.b.$ref→$defs/B.properties.c.$ref→$defs/C.properties.k has no description;"}}}},
		{name: "500 levels deep: the walk stops at its depth bound",
			schema: `{"type":"object","properties":{"n":` + deep + `}}`},
		{name: "remote and dangling references are not followed",
			schema: `{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json#/$defs/A","description":"A."},"b":{"$ref":"#/$defs/Nope","description":"B."},"c":{"$ref":"#/$defs/Nope"}}}`,
			want:   []want{{"param-no-description", "t", "warning", []string{"inputSchema.properties.c has no description;"}}}},
		{name: "escaped pointers",
			schema: `{"type":"object","properties":{"a":{"$ref":"#/$defs/a~1b%20c","description":"A."}},"$defs":{"a/b c":{"properties":{"k":{"type":"string"}}}}}`,
			want:   []want{{"param-no-description", "t", "warning", []string{`inputSchema.properties.a.$ref→"$defs/a~1b c".properties.k has no description;`}}}},
		{name: "zod bounds count only in a referenced definition",
			schema: `{"type":"object","properties":{"p":{"$ref":"#/$defs/Page","description":"Page size, 1 to 50."}},"$defs":{"Page":{"type":"integer","minimum":-9007199254740991,"maximum":9007199254740991},"Unused":{"type":"integer","maximum":9007199254740991}}}`,
			want:   []want{{"sdk-bounds", "t", "warning", []string{"inputSchema.properties.p.$ref→$defs/Page is bounded only by", "documented as 1–50"}}}},
		{name: "properties under additionalProperties, patternProperties and prefixItems",
			schema: `{"type":"object","properties":{"m":{"type":"object","description":"M.","additionalProperties":{"type":"object","properties":{"x":{"type":"string"}}}},
				"p":{"type":"object","description":"P.","patternProperties":{"^s_":{"type":"object","properties":{"y":{"type":"string"}}}}},
				"t":{"type":"array","description":"T.","prefixItems":[{"type":"object","properties":{"z":{"type":"string"}}}]}}}`,
			want: []want{{"param-no-description", "t", "warning", []string{"3 parameters", "inputSchema.properties.m.additionalProperties.properties.x, inputSchema.properties.p.patternProperties[\"^s_\"].properties.y, inputSchema.properties.t.prefixItems[0].properties.z;"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			check(t, Check(capture([]string{tool("t", tc.schema)}, nil, nil)), tc.want)
		})
	}
}

// The walk's bounds hold for any schema: no more than maxNodes schemas,
// and no deeper than maxDepth.
func TestSchemaWalkBounds(t *testing.T) {
	wide := make([]string, 3*maxNodes)
	for i := range wide {
		wide[i] = fmt.Sprintf(`"p%d":{"type":"string"}`, i)
	}
	sw := newSchemaWalk(parse(`{"properties":{` + strings.Join(wide, ",") + `}}`))
	sw.walk(sw.root, where{s: "inputSchema"}, false, "", "", 0)
	if len(sw.out) != maxNodes {
		t.Errorf("visited %d schemas, want the bound %d", len(sw.out), maxNodes)
	}
	deep := `{}`
	for range 3 * maxDepth {
		deep = `{"items":` + deep + `}`
	}
	sw = newSchemaWalk(parse(deep))
	sw.walk(sw.root, where{s: "inputSchema"}, false, "", "", 0)
	if len(sw.out) != maxDepth+1 {
		t.Errorf("visited %d schemas of a %d-deep one, want %d", len(sw.out), 3*maxDepth+1, maxDepth+1)
	}
}

func parse(s string) gjson.Result { return gjson.Parse(s) }
