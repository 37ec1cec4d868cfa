package main

import (
	"slices"
	"testing"
)

func TestParseRamp(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []float64
		ok   bool
	}{
		{"50:200:50", []float64{50, 100, 150, 200}, true},
		{"10/s:30/s:10/s", []float64{10, 20, 30}, true},
		{"0.5:1.5:0.5", []float64{0.5, 1, 1.5}, true},
		{"10:25:10", []float64{10, 20}, true},
		{"10:10:5", []float64{10}, true},
		{"10:5:1", nil, false},
		{"1:100:1", nil, false}, // 100 steps
		{"10:20", nil, false},
		{"a:b:c", nil, false},
		{"0:10:5", nil, false},
	} {
		got, err := parseRamp(tc.in)
		if (err == nil) != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("parseRamp(%q) = %v, %v; want %v (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestLoopback(t *testing.T) {
	for u, want := range map[string]bool{
		"http://127.0.0.1:3000/mcp":  true,
		"http://127.9.9.9/mcp":       true,
		"http://localhost:1/mcp":     true,
		"http://LOCALHOST/mcp":       true,
		"http://[::1]:80/mcp":        true,
		"http://10.0.0.1/mcp":        false,
		"https://example.com/mcp":    false,
		"http://127.0.0.1.nip.io/":   false,
		"http://[::ffff:10.0.0.1]/x": false,
		"::not a url":                false,
	} {
		if got := loopback(u); got != want {
			t.Errorf("loopback(%q) = %v, want %v", u, got, want)
		}
	}
}
