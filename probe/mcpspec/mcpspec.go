// Package mcpspec says where the MCP specification's text lives: the URL
// of a section of a revision, which every verdict cites (the clause it
// rests on). A leaf, so that the client and every judge can build it one
// way; probe/malformed's mcpURL and probe/check's specURL are the copies
// still to move here (issue 41).
package mcpspec

// Base is where the revisions are published, one folder each.
const Base = "https://modelcontextprotocol.io/specification/"

// URL is the address of path (a page, with its #section) in revision v
// (2025-11-25, 2026-07-28, …).
func URL(v, path string) string { return Base + v + "/" + path }
