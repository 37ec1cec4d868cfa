package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionFrom(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	for _, tc := range []struct {
		name     string
		main     string
		settings []debug.BuildSetting
		want     string
	}{
		{"go install @version", "v1.2.3", nil, "v1.2.3"},
		{"pseudo-version", "v0.0.0-20261201023000-abcdef123456", nil, "v0.0.0-20261201023000-abcdef123456"},
		{"checkout", "(devel)", vcs("vcs.revision", "0123456789abcdef0123", "vcs.time", "2026-12-01T02:30:00Z", "vcs.modified", "false"),
			"dev-0123456789ab (2026-12-01T02:30:00Z)"},
		{"dirty checkout", "(devel)", vcs("vcs.revision", "0123456789abcdef0123", "vcs.modified", "true"), "dev-0123456789ab-dirty"},
		{"no vcs", "(devel)", nil, "dev"},
		{"empty", "", nil, "dev"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bi := &debug.BuildInfo{Main: debug.Module{Version: tc.main}, Settings: tc.settings}
			if got := versionFrom(bi); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// A test binary has build info, so buildInfoVersion never comes back empty.
func TestBuildVersion(t *testing.T) {
	if buildInfoVersion() == "" {
		t.Error("empty version")
	}
}
