package lint

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// The schema walk reads an input schema as a validator does: from the
// root, through the keywords that hold schemas, and through each local
// $ref into the definition it names. $defs and definitions are not walked
// for themselves: a definition no one refers to constrains nothing, and
// its properties are no parameters a model fills in.
//
// Bounds, for schemas a server controls: depth (maxDepth), the number of
// schemas visited (maxNodes), the hops of a $ref chain (maxHops), and
// each reference target expanded once per tool, which ends every cycle
// and keeps a definition referred to from many places from being walked
// (and reported) many times.
const (
	maxDepth = 64
	maxNodes = 10000
	maxHops  = 32
)

// node is one schema in an input schema.
type node struct {
	path    string
	v       gjson.Result
	prop    bool   // a member of some "properties"
	name    string // its key, if prop
	ctxDesc string // its description, or the one of the property it belongs to
}

type schemaWalk struct {
	root gjson.Result
	out  []node
	// expanded holds the JSON pointers (the part of a $ref after "#")
	// already walked; the root, "", is walked first.
	expanded map[string]bool
}

func newSchemaWalk(root gjson.Result) *schemaWalk {
	return &schemaWalk{root: root, expanded: map[string]bool{"": true}}
}

var safeKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_$-]+$`) })

// seg is a path segment for a key: plain when it can be, else quoted.
func seg(k string) string {
	if safeKey().MatchString(k) && len(k) <= 60 {
		return "." + k
	}
	return "[" + quote(k) + "]"
}

var safePointer = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_$/.~-]{1,100}$`) })

// refSeg is the path segment that goes through a reference:
// ".$ref→$defs/Order", its target quoted when it holds anything odd.
func refSeg(ptr string) string {
	label := strings.TrimPrefix(ptr, "/")
	if ptr == "" {
		label = "#"
	}
	if !safePointer().MatchString(label) {
		label = quote(label)
	}
	return ".$ref→" + label
}

// maxRefsShown bounds a path's length: past that many references, the
// ones between the first and the last are left out ("…").
const maxRefsShown = 3

// where is a path in the walk: the text, and what eliding needs.
type where struct {
	s    string
	head string // s up to the end of its first reference
	refs int
}

func (p where) key(seg string) where { p.s += seg; return p }

// through is the path into the target of a reference.
func (p where) through(ptr string) where {
	p.refs++
	switch {
	case p.refs == 1:
		p.s += refSeg(ptr)
		p.head = p.s
	case p.refs <= maxRefsShown:
		p.s += refSeg(ptr)
	default:
		p.s = p.head + "…" + strings.TrimPrefix(refSeg(ptr), ".")
	}
	return p
}

// walk collects v and the schemas within it, depth first in wire order.
func (w *schemaWalk) walk(v gjson.Result, at where, prop bool, name, ctxDesc string, depth int) {
	if !v.Exists() || len(w.out) >= maxNodes {
		return
	}
	if d := v.Get("description"); d.Type == gjson.String && strings.TrimSpace(d.String()) != "" {
		ctxDesc = d.String()
	}
	w.out = append(w.out, node{path: at.s, v: v, prop: prop, name: name, ctxDesc: ctxDesc})
	if !v.IsObject() || depth >= maxDepth {
		return
	}
	if ps := v.Get("properties"); ps.IsObject() {
		ps.ForEach(func(k, p gjson.Result) bool {
			w.walk(p, at.key(".properties"+seg(k.String())), true, k.String(), "", depth+1)
			return true
		})
	}
	if ps := v.Get("patternProperties"); ps.IsObject() {
		ps.ForEach(func(k, p gjson.Result) bool {
			w.walk(p, at.key(".patternProperties"+seg(k.String())), false, "", ctxDesc, depth+1)
			return true
		})
	}
	if ap := v.Get("additionalProperties"); ap.IsObject() {
		w.walk(ap, at.key(".additionalProperties"), false, "", ctxDesc, depth+1)
	}
	switch it := v.Get("items"); {
	case it.IsObject():
		w.walk(it, at.key(".items"), false, "", ctxDesc, depth+1)
	case it.IsArray(): // draft-07 tuples
		for j, s := range it.Array() {
			w.walk(s, at.key(fmt.Sprintf(".items[%d]", j)), false, "", ctxDesc, depth+1)
		}
	}
	for _, kw := range []string{"prefixItems", "anyOf", "oneOf", "allOf"} {
		if arr := v.Get(kw); arr.IsArray() {
			for j, s := range arr.Array() {
				w.walk(s, at.key(fmt.Sprintf(".%s[%d]", kw, j)), false, "", ctxDesc, depth+1)
			}
		}
	}
	if ref := v.Get(gjson.Escape("$ref")); ref.Type == gjson.String {
		if ptr, ok := localPointer(ref.String()); ok && !w.expanded[ptr] {
			w.expanded[ptr] = true
			if target, ok := w.resolve(ptr); ok {
				w.walk(target, at.through(ptr), false, "", ctxDesc, depth+1)
			}
		}
	}
}

// localPointer returns the JSON pointer of a reference within the same
// document ("#/$defs/Order" → "/$defs/Order", "#" → ""). A reference to
// another document, which the lint cannot read, is not local.
func localPointer(ref string) (string, bool) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok || (frag != "" && !strings.HasPrefix(frag, "/")) {
		return "", false
	}
	// A fragment is URI-encoded: "#/$defs/A%20B".
	if dec, err := url.PathUnescape(frag); err == nil {
		frag = dec
	}
	return frag, true
}

// resolve finds what a JSON pointer points at, from the root.
func (w *schemaWalk) resolve(ptr string) (gjson.Result, bool) {
	v := w.root
	if ptr == "" {
		return v, true
	}
	tokens := strings.Split(ptr[1:], "/")
	if len(tokens) > maxDepth {
		return gjson.Result{}, false
	}
	for _, t := range tokens {
		t = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
		switch {
		case v.IsObject():
			v = v.Get(gjson.Escape(t))
		case v.IsArray():
			i, err := strconv.Atoi(t)
			arr := v.Array()
			if err != nil || i < 0 || i >= len(arr) {
				return gjson.Result{}, false
			}
			v = arr[i]
		default:
			return gjson.Result{}, false
		}
		if !v.Exists() {
			return gjson.Result{}, false
		}
	}
	return v, true
}

// described reports whether a property has a non-empty description: its
// own, or that of what its $ref chain leads to.
func (w *schemaWalk) described(v gjson.Result) bool {
	for hop := 0; hop <= maxHops; hop++ {
		if nonBlank(v.Get("description")) {
			return true
		}
		ref := v.Get(gjson.Escape("$ref"))
		if ref.Type != gjson.String {
			return false
		}
		ptr, ok := localPointer(ref.String())
		if !ok {
			return false
		}
		if v, ok = w.resolve(ptr); !ok {
			return false
		}
	}
	return false
}
