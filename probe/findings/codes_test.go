package findings

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var nameRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// TestRegistry checks each definition on its own and against the others.
func TestRegistry(t *testing.T) {
	if len(defs) < 50 {
		t.Fatalf("only %d codes registered", len(defs))
	}
	codes, names := map[Code]bool{}, map[string]bool{}
	for _, d := range defs {
		if codes[d.Code] {
			t.Errorf("code %d (%s) is defined twice", d.Code, d.Name)
		}
		if names[d.Name] {
			t.Errorf("name %s is defined twice", d.Name)
		}
		codes[d.Code], names[d.Name] = true, true
		if !nameRE.MatchString(d.Name) {
			t.Errorf("%q is not a lower-case, hyphenated name", d.Name)
		}
		if !d.Severity.Valid() {
			t.Errorf("%s: severity %q", d.Name, d.Severity)
		}
		for _, a := range d.Also {
			if !a.Valid() || a == d.Severity {
				t.Errorf("%s: Also holds %q, which is no other severity", d.Name, a)
			}
		}
		if !slices.Contains(Origins, d.Origin) {
			t.Errorf("%s: origin %q", d.Name, d.Origin)
		}
		if strings.TrimSpace(d.Title) == "" || strings.ContainsAny(d.Title, "|\n\r") {
			t.Errorf("%s: title %q is empty or breaks a table row", d.Name, d.Title)
		}
		if strings.HasPrefix(d.More, "#") {
			t.Errorf("%s: More %q carries its #", d.Name, d.More)
		}
		if got, ok := Lookup(d.Code); !ok || got.Name != d.Name {
			t.Errorf("Lookup(%s) = %v, %v", d.Name, got, ok)
		}
		if got, ok := ParseCode(d.Name); !ok || got != d.Code {
			t.Errorf("ParseCode(%s) = %v, %v", d.Name, got, ok)
		}
		if d.Code.String() != d.Name || d.Anchor() != "finding-"+d.Name {
			t.Errorf("%s: String %q, Anchor %q", d.Name, d.Code.String(), d.Anchor())
		}
	}
	if _, ok := Lookup(0); ok {
		t.Errorf("the zero Code is registered")
	}
}

// TestEveryConstantRegistered reads codes.go and checks that each Code
// constant has the definition whose name it spells (StdoutNoise is
// "stdout-noise"), so that no constant lacks a row and no row sits under
// another constant's value.
func TestEveryConstantRegistered(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "codes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var idents []*ast.Ident
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST || len(g.Specs) == 0 {
			continue
		}
		first := g.Specs[0].(*ast.ValueSpec)
		if typ, ok := first.Type.(*ast.Ident); !ok || typ.Name != "Code" {
			continue
		}
		for _, s := range g.Specs {
			idents = append(idents, s.(*ast.ValueSpec).Names...)
		}
	}
	if len(idents) == 0 {
		t.Fatal("no Code constants found in codes.go")
	}
	registered := 0
	for value, id := range idents {
		if id.Name == "_" {
			continue
		}
		registered++
		d, ok := Lookup(Code(value))
		if !ok {
			t.Errorf("constant %s (%d) has no definition", id.Name, value)
			continue
		}
		if strings.ToLower(id.Name) != strings.ReplaceAll(d.Name, "-", "") {
			t.Errorf("constant %s is defined as %q", id.Name, d.Name)
		}
	}
	if registered != len(defs) {
		t.Errorf("%d Code constants, %d definitions", registered, len(defs))
	}
}

func TestSeverityOrder(t *testing.T) {
	tests := []struct {
		s, min Severity
		want   bool
	}{
		{Error, Error, true}, {Error, Warning, true}, {Error, Info, true},
		{Warning, Error, false}, {Warning, Warning, true}, {Warning, Info, true},
		{Info, Error, false}, {Info, Warning, false}, {Info, Info, true},
		{"", Info, false}, {"fatal", Info, false}, {"Error", Info, false},
	}
	for _, tt := range tests {
		if got := tt.s.AtLeast(tt.min); got != tt.want {
			t.Errorf("%q.AtLeast(%q) = %v, want %v", tt.s, tt.min, got, tt.want)
		}
	}
	for i := 1; i < len(Severities); i++ {
		if Severities[i-1].Rank() <= Severities[i].Rank() {
			t.Errorf("Severities out of order: %v", Severities)
		}
	}
	for _, v := range []string{"error", "warning", "info"} {
		if s, ok := ParseSeverity(v); !ok || string(s) != v {
			t.Errorf("ParseSeverity(%q) = %q, %v", v, s, ok)
		}
	}
	if _, ok := ParseSeverity("warn"); ok {
		t.Errorf("ParseSeverity(warn) succeeded")
	}
}

func TestSort(t *testing.T) {
	fs := []Finding{
		New(Notification, "1"), New(StdoutNoise, "2"), New(Batch, "3"),
		New(CursorLoop, "4"), New(StdoutNoise, "5"), New(HTTP, "6"),
		NewAt(Info, EmptyDescription, "7"), New(EmptyDescription, "8"),
	}
	got := Sorted(fs)
	var msgs string
	for _, f := range got {
		msgs += f.Message
	}
	// error: cursor-loop < stdout-noise (2 before 5); warning: batch <
	// empty-description; info: empty-description < http < notification.
	if want := "42538761"; msgs != want {
		t.Errorf("sorted %s, want %s", msgs, want)
	}
	if fs[0].Message != "1" {
		t.Errorf("Sorted changed its argument")
	}
}

func TestNew(t *testing.T) {
	f := New(Cut, "%s loses %d", "`t`", 3).About("t")
	if f != (Finding{Severity: Warning, Code: Cut, Message: "`t` loses 3", Tool: "t"}) {
		t.Errorf("New: %+v", f)
	}
	if f := NewAt(Info, EmptyDescription, "x"); f.Severity != Info {
		t.Errorf("NewAt: %+v", f)
	}
	if f := NewAt(Warning, EmptyDescription, "x"); f.Severity != Warning {
		t.Errorf("NewAt at the code's own severity: %+v", f)
	}
	panics := func(name string, fn func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", name)
			}
		}()
		fn()
	}
	panics("New of an unregistered code", func() { New(Code(100000), "x") })
	panics("NewAt at a severity the registry does not allow", func() { NewAt(Error, EmptyDescription, "x") })
	panics("NewAt of a code without Also", func() { NewAt(Info, Cut, "x") })
}

// TestJSON pins the field names every --json output has used.
func TestJSON(t *testing.T) {
	tests := []struct {
		f    Finding
		want string
	}{
		{New(SchemaDrop, "m").About("t"), `{"severity":"warning","code":"schema-drop","message":"m","tool":"t"}`},
		{New(StdoutNoise, "m"), `{"severity":"error","code":"stdout-noise","message":"m"}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.f)
		if err != nil || string(b) != tt.want {
			t.Errorf("Marshal = %s, %v; want %s", b, err, tt.want)
			continue
		}
		var back Finding
		if err := json.Unmarshal(b, &back); err != nil || back != tt.f {
			t.Errorf("Unmarshal(%s) = %+v, %v", b, back, err)
		}
	}
	var c Code
	if err := json.Unmarshal([]byte(`"no-such-code"`), &c); err == nil {
		t.Errorf("an unknown code unmarshalled as %v", c)
	}
	if _, err := json.Marshal(Finding{}); err == nil {
		t.Errorf("the zero Finding marshalled")
	}
}
