package launch

import "testing"

func TestEscapedProcesses(t *testing.T) {
	tests := []struct {
		in   []string
		want string
	}{
		{[]string{"pid 4242 (sleep)"}, "a process (sleep)"},
		{[]string{"pid 9 (sleep)", "pid 3 (node)", "pid 12 (sleep)"}, "3 processes (node, sleep, sleep)"},
		{[]string{"odd"}, "a process (odd)"},
	}
	for _, tc := range tests {
		if got := escapedProcesses(tc.in); got != tc.want {
			t.Errorf("escapedProcesses(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
