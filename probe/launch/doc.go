// Package launch owns starting a target: it resolves one (a command, a
// URL, or an entry of a host's config file), starts it, owns its process
// tree, stops it the way a host does, and explains a failure in three
// parts: what happened, what was received, and what to try.
//
// Nothing else in mcpprobe starts or signals a process. The transport
// package only moves bytes over the pipes or connections launch hands it.
package launch
