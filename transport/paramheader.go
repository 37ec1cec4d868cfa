package transport

import (
	"net/http"
	"strings"

	"github.com/tidwall/gjson"
)

// ParamHeader is one tool parameter a tool marks with x-mcp-header
// (2026-07-28 server/tools#x-mcp-header): its value in a tools/call's
// arguments, at Path (a chain of properties keys), is mirrored into the
// request's Mcp-Param-{Name} header.
type ParamHeader struct {
	Name string
	Path []string
}

// maxParamDepth and maxParamHeaders bound what a tools/list (the
// server's) makes mcpprobe walk and send.
const (
	maxParamDepth   = 8
	maxParamHeaders = 64
)

// ParamHeaders reads a tool's inputSchema for the parameters it marks
// with x-mcp-header: properties reachable from the root through
// properties keys alone, on a string, integer or boolean. An annotation
// that breaks the constraints (not a token, a duplicate, another type) is
// not mirrored: mcpprobe reports such a definition (check's
// tools.x-mcp-header) rather than dropping the tool, as a host must.
func ParamHeaders(schema gjson.Result) []ParamHeader {
	var out []ParamHeader
	seen := map[string]bool{}
	var walk func(s gjson.Result, path []string)
	walk = func(s gjson.Result, path []string) {
		if len(path) >= maxParamDepth {
			return
		}
		s.Get("properties").ForEach(func(k, prop gjson.Result) bool {
			if len(out) >= maxParamHeaders {
				return false
			}
			p := append(append([]string(nil), path...), k.String())
			if h := prop.Get("x-mcp-header"); h.Type == gjson.String && isToken(h.Str) && primitive(prop.Get("type").String()) && !seen[strings.ToLower(h.Str)] {
				seen[strings.ToLower(h.Str)] = true
				out = append(out, ParamHeader{Name: h.Str, Path: p})
			}
			if prop.Get("properties").IsObject() {
				walk(prop, p)
			}
			return true
		})
	}
	walk(schema, nil)
	return out
}

func primitive(t string) bool { return t == "string" || t == "integer" || t == "boolean" }

// isToken is RFC 9110's 1*tchar.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// SetParamHeaders says, by tool name, which parameters each tools/call
// of the 2026-07-28 era mirrors into Mcp-Param headers (nil: none).
func (c *HTTP) SetParamHeaders(byTool map[string][]ParamHeader) {
	c.mu.Lock()
	c.paramHeaders = byTool
	c.mu.Unlock()
}

// setParamHeaders adds the Mcp-Param headers of a tools/call, each
// value read from the arguments being sent (so header and body cannot
// disagree) and encoded as streamable-http#value-encoding says; a value
// absent or null is no header.
func (c *HTTP) setParamHeaders(h http.Header, msg gjson.Result) {
	c.mu.Lock()
	hs := c.paramHeaders[msg.Get("params.name").String()]
	c.mu.Unlock()
	args := msg.Get("params.arguments")
	for _, ph := range hs {
		v := args
		for _, k := range ph.Path {
			v = v.Get(gjson.Escape(k))
		}
		var s string
		switch v.Type {
		case gjson.String:
			s = v.Str
		case gjson.Number:
			s = v.Raw
		case gjson.True:
			s = "true"
		case gjson.False:
			s = "false"
		default:
			continue // absent, null, or no primitive: no header
		}
		// Set directly: http.Header.Set would canonicalise the name
		// (header names compare case-insensitively); it goes out as the
		// tool spelled it.
		h["Mcp-Param-"+ph.Name] = []string{headerValue(s)}
	}
}
