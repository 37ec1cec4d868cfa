package main

import (
	"runtime/debug"
)

// buildInfoVersion names the binary when -ldflags did not set version: the
// module version for `go install …@v1.2.3`, else the commit, its date and
// whether the tree was dirty for a build from a checkout, else "dev".
func buildInfoVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	return versionFrom(bi)
}

func versionFrom(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, at string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	v := "dev-" + rev[:min(len(rev), 12)]
	if dirty {
		v += "-dirty"
	}
	if at != "" {
		v += " (" + at + ")"
	}
	return v
}
