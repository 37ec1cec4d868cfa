// Package inertcheck finds what in a markdown document would be live on a
// forge: every link, autolink, image and piece of raw HTML as goldmark
// parses it with GitHub's extensions (tables, strikethrough, task lists
// and Linkify, GitHub's extended autolinks). Tests use it to show that
// nothing a server sent becomes live markup in a report; it is imported
// by tests only, so goldmark never reaches the binary.
package inertcheck

import (
	"fmt"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// Own are the destinations mcpprobe itself links to: the specifications a
// finding cites and the README's anchors.
var Own = []string{
	"https://modelcontextprotocol.io/",
	"https://www.jsonrpc.org/",
	"https://json-schema.org/",
	"https://github.com/mcpprobe/mcpprobe",
	"#",
}

func own(dest string) bool {
	for _, p := range Own {
		if strings.HasPrefix(dest, p) {
			return true
		}
	}
	return false
}

// Live lists every link, autolink or image whose destination is not one
// of Own, and every piece of raw HTML, in document order, each with the
// source text it came from.
func Live(md []byte) []string {
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(md))
	var live []string
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			if !own(string(n.Destination)) {
				live = append(live, fmt.Sprintf("link to %q", n.Destination))
			}
		case *ast.Image:
			live = append(live, fmt.Sprintf("image of %q", n.Destination))
		case *ast.AutoLink:
			if u := string(n.URL(md)); !own(u) {
				live = append(live, fmt.Sprintf("autolink %q", u))
			}
		case *ast.RawHTML:
			var b strings.Builder
			for i := 0; i < n.Segments.Len(); i++ {
				s := n.Segments.At(i)
				b.Write(s.Value(md))
			}
			live = append(live, fmt.Sprintf("raw HTML %q", b.String()))
		case *ast.HTMLBlock:
			var b strings.Builder
			for i := 0; i < n.Lines().Len(); i++ {
				s := n.Lines().At(i)
				b.Write(s.Value(md))
			}
			live = append(live, fmt.Sprintf("HTML block %q", b.String()))
		}
		return ast.WalkContinue, nil
	})
	return live
}
