package hosts

import "fmt"

// Flags are the host-flag group's values as given on the command line:
// every command that judges a server against hosts takes the same group.
type Flags struct {
	File  string   // --hosts: profiles that replace or extend the built-in ones
	Specs []string // --host: ids, or id=CUT; nil when the flag was not given
	View  string   // --view: one host whose delivery is printed; "" without it
}

// Choice is what the host flags chose, worked out once before any server
// starts and then passed, as a value, to whatever judges the server.
type Choice struct {
	// Known is every profile: the built-in ones, with what --hosts
	// replaced or added.
	Known []Host
	// Selected is --host's picks from Known, in the order given; without
	// --host, every profile and the strictest-of-each "all" row.
	Selected []Host
	// Picked: --host was given.
	Picked bool
	// View is --view's host (with its cut, as --host's id=CUT), nil
	// without --view.
	View *Host
}

// Resolve reads the --hosts file and picks --host's and --view's hosts
// from it. Its errors start with the flag at fault, for a usage error.
func Resolve(f Flags) (Choice, error) {
	c := Choice{Known: Known(), Picked: f.Specs != nil}
	if f.File != "" {
		var err error
		if c.Known, err = Load(f.File, c.Known); err != nil {
			return Choice{}, fmt.Errorf("--hosts: %v", err)
		}
	}
	var err error
	if c.Selected, err = Select(c.Known, f.Specs); err != nil {
		return Choice{}, fmt.Errorf("--host: %v", err)
	}
	if f.View != "" {
		v, err := Select(c.Known, []string{f.View})
		if err != nil {
			return Choice{}, fmt.Errorf("--view: %v", err)
		}
		c.View = &v[0]
	}
	return c, nil
}

// Each is the hosts a command judges one by one, where a derived
// strictest row would only repeat the harshest host's figure (a call's
// result delivery, bench's initialize deadlines): --host's picks, or
// without --host every known profile.
func (c Choice) Each() []Host {
	if c.Picked {
		return c.Selected
	}
	return c.Known
}
