// Package args holds what mcpprobe knows about a tool call's arguments:
// the minimal valid arguments an input schema accepts, building and
// validating the arguments a user gives, pairing each --args with its
// --call, and planning which tools to call with which arguments. bench,
// faults, malformed and call use it; it uses none of them.
package args
