package faults

import (
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	script := []string{"> " + call(1, "a"), "< " + reply(1), "< noise", "> " + call(2, "b"), "< " + reply(2)}
	whole := reply(1) + "\n" + "noise\n" + reply(2) + "\n"
	chunks := func(seed uint64) (client []string, server string) {
		r := newRig(t, InProxy, Values{"split": "true"}, seed)
		for _, l := range r.play(script...) {
			if strings.HasPrefix(l, "C ") {
				client = append(client, l[2:])
			} else {
				server += l + "|"
			}
		}
		return client, server
	}
	c7, s7 := chunks(7)
	if strings.Join(c7, "") != whole {
		t.Errorf("split changed the bytes: %q", strings.Join(c7, ""))
	}
	if len(c7) < len(whole)/16 {
		t.Errorf("%d writes for %d bytes", len(c7), len(whole))
	}
	for _, c := range c7 {
		if len(c) < 1 || len(c) > 16 {
			t.Errorf("a chunk of %d bytes", len(c))
		}
	}
	if want := sent("S", call(1, "a")) + "|" + sent("S", call(2, "b")) + "|"; s7 != want {
		t.Errorf("what goes to the server was split: %q", s7)
	}
	again, _ := chunks(7)
	other, _ := chunks(8)
	if strings.Join(again, "|") != strings.Join(c7, "|") || strings.Join(other, "|") == strings.Join(c7, "|") {
		t.Error("the seed does not decide the boundaries")
	}
}

func TestSplitRefusedInShim(t *testing.T) {
	p, err := ParsePlan(Values{"split": "true"}.Get, 1)
	if err != nil {
		t.Fatal(err)
	}
	err = p.Check(InShim)
	if err == nil || !strings.HasPrefix(err.Error(), "--split acts only in mcpprobe proxy: ") {
		t.Errorf("Check(InShim) = %v", err)
	}
}
