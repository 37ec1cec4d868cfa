package faults

import (
	"math/rand/v2"
	"testing"
)

func TestParseSelector(t *testing.T) {
	tests := []struct {
		in   string
		want Selector
		bad  bool
	}{
		{"6", Selector{At: 6}, false},
		{"tool:get_device", Selector{Tool: "get_device"}, false},
		{"p:0.25", Selector{Prob: 0.25}, false},
		{"0", Selector{}, true},
		{"p:2", Selector{}, true},
		{"six", Selector{}, true},
	}
	for _, tc := range tests {
		got, err := ParseSelector(tc.in)
		if (err != nil) != tc.bad || (!tc.bad && got != tc.want) {
			t.Errorf("ParseSelector(%q) = %+v, %v", tc.in, got, err)
		}
	}
}

func TestSelectorMatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	if !(Selector{At: 3}).Match(3, "x", rng) || (Selector{At: 3}).Match(4, "x", rng) {
		t.Error("At")
	}
	if !(Selector{Tool: "x"}).Match(9, "x", rng) || (Selector{Tool: "x"}).Match(9, "y", rng) {
		t.Error("Tool")
	}
	hits := 0
	for i := 0; i < 10000; i++ {
		if (Selector{Prob: 0.1}).Match(i, "x", rng) {
			hits++
		}
	}
	if hits < 800 || hits > 1200 {
		t.Errorf("p=0.1 hit %d of 10000", hits)
	}
}
