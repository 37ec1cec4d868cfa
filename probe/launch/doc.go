// Package launch owns starting a target: it resolves one (a command, a
// URL, or an entry of a host's config file), starts it, owns its process
// tree, and stops it the way a host does, reporting how it went.
//
// Nothing else in mcpprobe starts or signals a process. The transport
// package only moves bytes over the pipes or connections launch hands it.
// launch knows nothing of MCP: it imports no client code. Connecting the
// probe's client and explaining a failure to the user is probe/dial's.
package launch
