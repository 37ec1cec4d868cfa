package main

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/mcpprobe/mcpprobe/faults"
	"github.com/urfave/cli/v3"
)

// Every bound a flag sets is checked before anything starts: a value
// that cannot mean what the flag says is a usage error naming the flag,
// never replaced by a default behind the user's back.

// checkValues refuses the one combination of the bounds that cannot
// hold; each value alone is its flag's Validator's (flags.go).
func checkValues(cmd *cli.Command) error {
	if cmd.IsSet("discover-timeout") && cmd.Duration("discover-timeout") > cmd.Duration("startup-timeout") {
		return usageErr("--discover-timeout %s is longer than --startup-timeout %s, which bounds the whole handshake; lower the one or raise the other",
			cmd.Duration("discover-timeout"), cmd.Duration("startup-timeout"))
	}
	return nil
}

// atLeast refuses a count below min, naming the flag.
func atLeast(cmd *cli.Command, name string, min int) error {
	if v := cmd.Int(name); v < min {
		return usageErr("%s %d: want %d or more", dash(name), v, min)
	}
	return nil
}

// writable refuses, before anything runs, a file path that cannot be
// written: a folder, or a file in a folder that does not exist.
func writable(flag, p string) error {
	if p == "" {
		return usageErr("%s needs a file name", flag)
	}
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return usageErr("%s %s is a folder; give a file name", flag, p)
	}
	dir := filepath.Dir(p)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return usageErr("%s %s: the folder %s does not exist", flag, p, dir)
	case err != nil:
		return usageErr("%s %s: %v", flag, p, unwrapPath(err))
	case !st.IsDir():
		return usageErr("%s %s: %s is not a folder", flag, p, dir)
	}
	return nil
}

// faultCompanions refuses a fault's companion flag given without the
// flag that turns the fault on (--delay without --slow-at), and a
// duration or count that cannot be one (--delay -1s): either would be
// ignored, and a fault that was asked for would silently not happen.
func faultCompanions(cmd *cli.Command) error {
	for _, k := range faults.Kinds() {
		for i, f := range k.Flags {
			if !cmd.IsSet(f.Name) {
				continue
			}
			switch f.Type {
			case faults.Duration:
				if d := cmd.Duration(f.Name); d <= 0 {
					return usageErr("--%s %s: want a duration above 0, such as %s", f.Name, d, f.Default)
				}
			case faults.Count:
				if n := cmd.Int(f.Name); n < 1 {
					return usageErr("--%s %d: want 1 or more", f.Name, n)
				}
			}
			if first := k.Flags[0].Name; i > 0 && !cmd.IsSet(first) {
				return usageErr("--%s goes with --%s, which turns the %s fault on", f.Name, first, k.Name)
			}
		}
	}
	return nil
}
