package bench

import "testing"

func TestParseCPULine(t *testing.T) {
	tests := []struct {
		line        string
		idle, total uint64
		ok          bool
	}{
		{"cpu  100 5 50 800 20 1 2 3 40 0", 820, 981, true},
		{"cpu 1 2 3 4 5", 9, 15, true},
		{"cpu0 1 2 3 4 5 6 7 8", 0, 0, false},
		{"cpu 1 2 x 4 5", 0, 0, false},
		{"cpu 1 2", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, tc := range tests {
		idle, total, ok := parseCPULine(tc.line)
		if idle != tc.idle || total != tc.total || ok != tc.ok {
			t.Errorf("parseCPULine(%q) = %d, %d, %v; want %d, %d, %v", tc.line, idle, total, ok, tc.idle, tc.total, tc.ok)
		}
	}
	if idle, ok := idleCPUs(10e6); ok && (idle < 0 || idle > 1024) {
		t.Errorf("idleCPUs = %v", idle)
	}
}
