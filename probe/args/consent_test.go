package args

import (
	"strings"
	"testing"
)

func TestConsented(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, tool string
		call       bool
		why        string
	}{
		{"read-only", `{"name":"a","annotations":{"readOnlyHint":true}}`, true, "readOnlyHint true"},
		{"read-only, not destructive", `{"name":"a","annotations":{"readOnlyHint":true,"destructiveHint":false}}`, true, "readOnlyHint true"},
		{"open world", `{"name":"a","annotations":{"readOnlyHint":true,"openWorldHint":true}}`, true, "openWorldHint true"},
		{"no annotations", `{"name":"a"}`, false, NotReadOnly},
		{"read-only false", `{"name":"a","annotations":{"readOnlyHint":false}}`, false, "readOnlyHint false"},
		{"destructive and read-only", `{"name":"a","annotations":{"readOnlyHint":true,"destructiveHint":true}}`, false, "destructiveHint true"},
		{"read-only 1", `{"name":"a","annotations":{"readOnlyHint":1}}`, false, "readOnlyHint is 1, not a JSON boolean"},
		{"read-only string", `{"name":"a","annotations":{"readOnlyHint":"true"}}`, false, `readOnlyHint is "true", not a JSON boolean`},
		{"read-only null", `{"name":"a","annotations":{"readOnlyHint":null}}`, false, "readOnlyHint is null, not a JSON boolean"},
		{"read-only object", `{"name":"a","annotations":{"readOnlyHint":{"v":true}}}`, false, "not a JSON boolean"},
		{"destructive string", `{"name":"a","annotations":{"readOnlyHint":true,"destructiveHint":"false"}}`, false, `destructiveHint is "false", not a JSON boolean`},
		{"idempotent number", `{"name":"a","annotations":{"readOnlyHint":true,"idempotentHint":0}}`, false, "idempotentHint is 0"},
		{"open world string", `{"name":"a","annotations":{"readOnlyHint":true,"openWorldHint":"yes"}}`, false, `openWorldHint is "yes"`},
		// gjson reads the first of two keys, JavaScript the last: neither
		// may decide a call
		{"destructive twice", `{"name":"a","annotations":{"readOnlyHint":true,"destructiveHint":false,"destructiveHint":true}}`, false, "destructiveHint is given twice"},
		{"read-only twice", `{"name":"a","annotations":{"readOnlyHint":true,"readOnlyHint":true}}`, false, "readOnlyHint is given twice"},
		{"annotations not an object", `{"name":"a","annotations":[{"readOnlyHint":true}]}`, false, "annotations is not an object"},
		{"annotations a string", `{"name":"a","annotations":"readOnlyHint"}`, false, "annotations is not an object"},
		{"other annotations ignored", `{"name":"a","annotations":{"readOnlyHint":true,"title":7,"x":"y"}}`, true, "readOnlyHint true"},
		{"a long raw value is cut", `{"name":"a","annotations":{"readOnlyHint":"` + strings.Repeat("y", 5000) + `"}}`, false, "…, not a JSON boolean"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			call, why := Consented([]byte(tc.tool))
			if call != tc.call || !strings.Contains(why, tc.why) {
				t.Errorf("Consented = %v, %q; want %v, containing %q", call, why, tc.call, tc.why)
			}
			if len(why) > 200 {
				t.Errorf("why is %d bytes: a server's value is not bounded", len(why))
			}
			if ReadOnly([]byte(tc.tool)) != tc.call {
				t.Errorf("ReadOnly disagrees with Consented")
			}
		})
	}
}

func TestChoose(t *testing.T) {
	t.Parallel()
	tools := [][]byte{
		[]byte(`{"name":"ro","annotations":{"readOnlyHint":true}}`),
		[]byte(`{"name":"rm","annotations":{"readOnlyHint":true,"destructiveHint":true}}`),
		[]byte(`{"name":"trigger-long-running-operation","title":"Long Running Operation","description":"Demonstrates it","annotations":{"readOnlyHint":true}}`),
		[]byte(`{"name":"nap","description":"Sleeps a while.","annotations":{"readOnlyHint":true}}`),
		[]byte(`{"name":"find","description":"Free text is slower: use it last.","annotations":{"readOnlyHint":true}}`),
	}
	show := func(cs []Choice) string {
		var out []string
		for _, c := range cs {
			s := c.Tool + "="
			if c.Call {
				s += "call"
			} else {
				s += "skip"
			}
			out = append(out, s+" ("+c.Why+")")
		}
		return strings.Join(out, "; ")
	}
	for _, tc := range []struct {
		name    string
		named   []string
		noCalls bool
		want    string
	}{
		{"by the rule", nil, false, `ro=call (readOnlyHint true); rm=skip (destructiveHint true); trigger-long-running-operation=skip (its name or title speaks of long work ("long-running"): a call would wait it out); nap=call (readOnlyHint true); find=call (readOnlyHint true)`},
		{"named is consent", []string{"rm"}, false, "ro=skip (not named with --call); rm=call (named with --call); trigger-long-running-operation=skip (not named with --call); nap=skip (not named with --call); find=skip (not named with --call)"},
		{"none", nil, true, "ro=skip (" + NoToolCalls + "); rm=skip (" + NoToolCalls + "); trigger-long-running-operation=skip (" + NoToolCalls + "); nap=skip (" + NoToolCalls + "); find=skip (" + NoToolCalls + ")"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := show(Choose(tools, tc.named, tc.noCalls)); got != tc.want {
				t.Errorf("Choose:\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestCheapest(t *testing.T) {
	t.Parallel()
	tools := [][]byte{
		[]byte(`{"name":"two","inputSchema":{"type":"object","required":["a","b"]}}`),
		[]byte(`{"name":"big","inputSchema":{"type":"object","properties":{"a":{"type":"string","description":"long long long"}}}}`),
		[]byte(`{"name":"small","inputSchema":{"type":"object"}}`),
		[]byte(`{"name":"one","inputSchema":{"type":"object","required":["a"]}}`),
		[]byte(`{"name":"small2","inputSchema":{"type":"object"}}`),
	}
	var got []string
	for _, i := range Cheapest(tools) {
		got = append(got, string(tools[i][9:12]))
	}
	if s := strings.Join(got, ","); s != "sma,sma,big,one,two" {
		t.Errorf("Cheapest order %s", s)
	}
}
