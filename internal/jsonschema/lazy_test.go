package jsonschema

import (
	"strings"
	"sync"
	"testing"
)

// The one change from upstream: metaschemas load on first use, and a
// schema is still checked against its draft's metaschema, from any number
// of goroutines at once (go test -race).
func TestLazyMetaschemas(t *testing.T) {
	if Draft2020.sch != nil {
		t.Fatal("the 2020-12 metaschema was compiled before any schema was")
	}
	cases := []struct {
		name, schema string
		wantErr      string
	}{
		{"valid 2020-12", `{"type":"object","properties":{"a":{"type":"integer"}}}`, ""},
		{"invalid type keyword", `{"type":12}`, "not valid against metaschema"},
		{"draft-07 invalid", `{"$schema":"http://json-schema.org/draft-07/schema#","minimum":"x"}`, "not valid against metaschema"},
	}
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		for _, tc := range cases {
			wg.Add(1)
			go func() {
				defer wg.Done()
				doc, err := UnmarshalJSON(strings.NewReader(tc.schema))
				if err != nil {
					t.Error(err)
					return
				}
				c := NewCompiler()
				if err := c.AddResource("mem://s.json", doc); err != nil {
					t.Error(err)
					return
				}
				_, err = c.Compile("mem://s.json")
				switch {
				case tc.wantErr == "" && err != nil:
					t.Errorf("%s: %v", tc.name, err)
				case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
					t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.wantErr)
				}
			}()
		}
	}
	wg.Wait()
	if Draft2020.sch == nil || Draft2020.vocabSch["core"] == nil {
		t.Fatal("the metaschemas were not compiled by the first compile")
	}
}
