package probe

import "fmt"

// OptionError is a run that cannot start because of what the user asked
// for (no tool to call, a bad argument), not because of the server: the
// CLI maps it to the usage exit code. Domain packages return it so they
// need not know about exit codes.
type OptionError struct{ Msg string }

func (e *OptionError) Error() string { return e.Msg }

// Optionf builds an OptionError.
func Optionf(format string, args ...any) error {
	return &OptionError{Msg: fmt.Sprintf(format, args...)}
}
