package reports

import (
	"fmt"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
	"io"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/cards"
)

// CardsJSON is wire --json's cards member: each catalog and card path
// looked for, the answer's body as received ("body", with body_b64 when it
// is not UTF-8) and what is derived from it under "derived".
func CardsJSON(r *cards.Result) []byte {
	docs := make([][]byte, 0, len(r.Docs))
	for _, d := range r.Docs {
		o := &jsonout.Object{}
		o.Set("where", d.Where).Set("url", d.URL).Set("inline", d.Inline)
		if d.Inline {
			o.Raw("accept", nil).Raw("status", nil)
		} else {
			o.Set("accept", d.Accept).Set("status", jsonout.NsOrNull(int64(d.Status), d.Status != 0))
		}
		redirects := d.Redirects
		if redirects == nil {
			redirects = []string{}
		}
		o.Set("redirects", redirects)
		h := &jsonout.Object{}
		h.Set("content_type", jsonout.NullIfEmpty(d.ContentType)).Set("access_control_allow_origin", jsonout.NullIfEmpty(d.AllowOrigin))
		h.Set("cache_control", jsonout.NullIfEmpty(d.CacheControl)).Set("etag", jsonout.NullIfEmpty(d.ETag))
		o.Raw("headers", h.Bytes())
		if d.Raw == nil {
			o.Raw("body", nil)
		} else {
			o.Set("body", string(d.Raw))
		}
		o.Set("cut", d.Cut).Set("error", jsonout.NullIfEmpty(d.Err))
		o.Set("revalidated", jsonout.NsOrNull(int64(d.Revalidated), d.Revalidated != 0)).Set("revalidate_error", jsonout.NullIfEmpty(d.RevalidateErr))
		dv := &jsonout.Object{}
		dv.Set("shape", jsonout.NullIfEmpty(d.Shape)).Set("problem", jsonout.NullIfEmpty(d.Problem))
		if c := d.Card; c != nil {
			co := &jsonout.Object{}
			co.Set("older_shape", c.Older).Set("name", c.Name).Set("version", c.Version).Set("title", jsonout.NullIfEmpty(c.Title))
			remotes := make([][]byte, 0, len(c.Remotes))
			for _, rm := range c.Remotes {
				ro := &jsonout.Object{}
				vs := rm.Versions
				if vs == nil {
					vs = []string{}
				}
				ro.Set("type", rm.Type).Set("url", rm.URL).Set("protocol_versions", vs)
				remotes = append(remotes, ro.Bytes())
			}
			co.Raw("remotes", jsonout.RawArray(remotes))
			caps := c.Capabilities
			if caps == nil {
				caps = []string{}
			}
			co.Set("capabilities", caps)
			dv.Raw("card", co.Bytes())
		} else {
			dv.Raw("card", nil)
		}
		entries := make([][]byte, 0, len(d.Entries))
		for _, e := range d.Entries {
			eo := &jsonout.Object{}
			eo.Set("index", e.Index).Set("identifier", e.Identifier).Set("type", e.Type).Set("url", jsonout.NullIfEmpty(e.URL)).Set("inline", e.HasData).Set("problem", jsonout.NullIfEmpty(e.Problem))
			entries = append(entries, eo.Bytes())
		}
		dv.Raw("entries", jsonout.RawArray(entries))
		o.Raw("derived", dv.Bytes())
		docs = append(docs, o.Bytes())
	}
	return jsonout.RawArray(docs)
}

// CardsText is wire's text of the cards: one line per path looked for,
// the shape it serves or what it answered.
func CardsText(w io.Writer, r *cards.Result) {
	if r == nil {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Server cards and catalogs (GET, no credentials):")
	for _, d := range r.Docs {
		var what string
		switch {
		case d.Found() && d.Problem != "":
			what = d.Shape + ": " + d.Problem
		case d.Found() && d.Card != nil:
			what = fmt.Sprintf("%s: %s %s", d.Shape, d.Card.Name, d.Card.Version)
		case d.Found() && d.Shape == cards.ShapeCatalog:
			what = fmt.Sprintf("%s of %d entries", d.Shape, len(d.Entries))
		case d.Found():
			what = d.Shape
		case d.Err != "":
			what = d.Err
			if d.Status != 0 {
				what = fmt.Sprintf("HTTP %d, %s", d.Status, d.Err)
			}
		default:
			what = fmt.Sprintf("HTTP %d: none", d.Status)
		}
		if d.Found() && !d.Inline {
			var hs []string
			for _, h := range [][2]string{{"Content-Type", d.ContentType}, {"Access-Control-Allow-Origin", d.AllowOrigin}, {"Cache-Control", d.CacheControl}, {"ETag", d.ETag}} {
				if h[1] != "" {
					hs = append(hs, h[0]+": "+h[1])
				}
			}
			if d.Revalidated != 0 {
				hs = append(hs, fmt.Sprintf("If-None-Match answered %d", d.Revalidated))
			}
			if len(hs) > 0 {
				what += " (" + strings.Join(hs, ", ") + ")"
			}
		}
		fmt.Fprintf(w, "  %s  %s\n", terminal.Escape(d.Where), terminal.Escape(what))
	}
}
