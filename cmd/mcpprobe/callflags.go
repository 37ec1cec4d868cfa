package main

import (
	"github.com/mcpprobe/mcpprobe/probe/args"
	"github.com/urfave/cli/v3"
)

// callFlags declares --call (repeatable) and --args as one pair: each
// --args is the arguments of the --call before it. urfave/cli keeps each
// flag's values apart, which loses that order; both flags here write to
// one list, in the order the library parses them. The library still does
// the reading (--call=x, a value that starts with a dash, where "--"
// ends the flags), so the order comes from the parse itself rather than
// from a second reading of the command line that could disagree with it.
func callFlags(callUsage, argsUsage string) []cli.Flag {
	seq := &callOrder{}
	return []cli.Flag{
		&cli.GenericFlag{Name: "call", Value: &orderedFlag{name: "call", seq: seq}, Usage: callUsage},
		&cli.GenericFlag{Name: "args", Value: &orderedFlag{name: "args", seq: seq}, Usage: argsUsage},
	}
}

// callOrder is every --call and --args given, in command-line order.
type callOrder struct{ flags []args.Flag }

// orderedFlag is one of the pair, appending what it is given to the list
// they share.
type orderedFlag struct {
	name string
	seq  *callOrder
}

func (f *orderedFlag) Set(s string) error {
	f.seq.flags = append(f.seq.flags, args.Flag{Name: f.name, Value: s})
	return nil
}
func (f *orderedFlag) String() string { return "" }
func (f *orderedFlag) Get() any       { return f.seq }

// callsFromFlags pairs --call and --args in the order given; a call
// without --args gets minimal valid arguments when the calls are planned.
// A pairing that cannot be meant (an --args before any --call, two for
// one --call) is a usage error that names the --args.
func callsFromFlags(cmd *cli.Command) ([]args.Call, error) {
	seq, _ := cmd.Value("call").(*callOrder)
	if seq == nil {
		return nil, nil
	}
	calls, err := args.Pair(seq.flags)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return calls, nil
}
