// Package jsonout is the machinery of every --json: the envelope every
// command's output starts with, its JSON Schema and validator, and the
// ordered object builder that embeds a server's bytes verbatim. The
// per-command renderers in reports build their sections with it; none of
// them defines a piece of it.
package jsonout
