// Package mcpspec says where the MCP specification's text lives and how a
// verdict cites it: the URL of a section of a revision, and the Clause
// every verdict rests on. A leaf, so that the client and every judge
// build a citation one way.
package mcpspec

// Base is where the revisions are published, one folder each.
const Base = "https://modelcontextprotocol.io/specification/"

// URL is the address of path (a page, with its #section) in revision v
// (2025-11-25, 2026-07-28, …).
func URL(v, path string) string { return Base + v + "/" + path }
