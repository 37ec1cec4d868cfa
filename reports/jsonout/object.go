package jsonout

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpprobe/mcpprobe/transport"
)

// Object builds a JSON object whose members keep the order they were added
// in, and whose raw members are copied verbatim: the server's own bytes go
// out exactly as they came in, which encoding/json cannot promise.
type Object struct {
	buf bytes.Buffer
	n   int
}

// Raw adds a member whose value is already JSON. A value holding bytes
// that are not UTF-8 (a server's, embedded as sent) is written with each
// such byte as \ufffd, so that the output stays valid UTF-8 for every
// parser, and is followed by key_b64: the exact bytes, base64-encoded.
func (o *Object) Raw(key string, value []byte) *Object {
	if !utf8.Valid(value) {
		o.raw(key, ValidUTF8(value))
		return o.raw(key+"_b64", marshal(base64.StdEncoding.EncodeToString(value)))
	}
	return o.raw(key, value)
}

func (o *Object) raw(key string, value []byte) *Object {
	if o.n == 0 {
		o.buf.WriteByte('{')
	} else {
		o.buf.WriteByte(',')
	}
	o.n++
	o.buf.Write(marshal(key))
	o.buf.WriteByte(':')
	if len(value) == 0 {
		value = []byte("null")
	}
	o.buf.Write(value)
	return o
}

// Set adds a member encoded by encoding/json, which writes a byte that is
// not UTF-8 as \ufffd. A string (or list of strings) holding such bytes is
// followed by key_b64 with its exact bytes: the base64 of the string, or
// for a list an object from the index of each such string to its base64.
func (o *Object) Set(key string, v any) *Object {
	o.raw(key, marshal(v))
	if b := invalidB64(v); b != nil {
		o.raw(key+"_b64", b)
	}
	return o
}

// Items adds an array of raw JSON values (items as a server sent them).
// Items holding bytes that are not UTF-8 are written valid, as Raw
// writes them, and key_b64 maps the index of each to its exact bytes.
func (o *Object) Items(key string, items [][]byte) *Object {
	var exact map[string]string
	valid := items
	for i, it := range items {
		if utf8.Valid(it) {
			continue
		}
		if exact == nil {
			exact = map[string]string{}
			valid = append([][]byte(nil), items...)
		}
		exact[strconv.Itoa(i)] = base64.StdEncoding.EncodeToString(it)
		valid[i] = ValidUTF8(it)
	}
	o.raw(key, RawArray(valid))
	if exact != nil {
		o.raw(key+"_b64", marshal(exact))
	}
	return o
}

// invalidB64 is Set's key_b64 for v, or nil when v is valid UTF-8 or not
// a string.
func invalidB64(v any) []byte {
	switch v := v.(type) {
	case *string:
		if v != nil {
			return invalidB64(*v)
		}
	case string:
		if !utf8.ValidString(v) {
			return marshal(base64.StdEncoding.EncodeToString([]byte(v)))
		}
	case []string:
		var exact map[string]string
		for i, s := range v {
			if !utf8.ValidString(s) {
				if exact == nil {
					exact = map[string]string{}
				}
				exact[strconv.Itoa(i)] = base64.StdEncoding.EncodeToString([]byte(s))
			}
		}
		if exact != nil {
			return marshal(exact)
		}
	}
	return nil
}

// ValidUTF8 returns raw JSON with each byte that is not UTF-8 written as
// the escape \ufffd: inside a string (the only place valid JSON can hold
// one) it is the replacement character a decoder would have made of it.
func ValidUTF8(raw []byte) []byte {
	if utf8.Valid(raw) {
		return raw
	}
	out := make([]byte, 0, len(raw)+16)
	for i := 0; i < len(raw); {
		r, n := utf8.DecodeRune(raw[i:])
		if r == utf8.RuneError && n == 1 {
			out = append(out, `\ufffd`...)
		} else {
			out = append(out, raw[i:i+n]...)
		}
		i += n
	}
	return out
}

// Bytes closes the object and returns it.
func (o *Object) Bytes() []byte {
	if o.n == 0 {
		return []byte("{}")
	}
	return append(o.buf.Bytes(), '}')
}

// RawArray joins raw JSON values into an array.
func RawArray(items [][]byte) []byte {
	return append(append([]byte{'['}, bytes.Join(items, []byte{','})...), ']')
}

func marshal(v any) []byte {
	// The scalars every section is made of, written as encoding/json
	// writes them, without an encoder each: budget --json at 10,000 tools
	// set a million members, and an encoder per member was most of its
	// CPU.
	switch x := v.(type) {
	case string:
		if plainASCII(x) {
			b := make([]byte, 0, len(x)+2)
			return append(append(append(b, '"'), x...), '"')
		}
	case int:
		return strconv.AppendInt(nil, int64(x), 10)
	case int64:
		return strconv.AppendInt(nil, x, 10)
	case bool:
		return strconv.AppendBool(nil, x)
	case nil:
		return []byte("null")
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte("null")
	}
	// What we encode escapes what a terminal would act on, as text output
	// does; the escape is the same JSON value.
	out, _ := transport.EscapeInvisible(bytes.TrimRight(b.Bytes(), "\n"))
	return out
}

func NullIfEmpty(s string) any {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return s
}

func NsOrNull(ns int64, ok bool) any {
	if !ok {
		return nil
	}
	return ns
}

// plainASCII: s is printable ASCII that JSON writes as it is (no quote,
// no backslash), so nothing in it needs escaping or a terminal's escape.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// WithMember appends one member to the JSON object obj (a section).
func WithMember(obj []byte, key string, value []byte) []byte {
	obj = bytes.TrimRight(obj, " \n")
	if len(obj) < 2 || obj[len(obj)-1] != '}' {
		return obj
	}
	sep := ","
	if bytes.Equal(bytes.TrimSpace(obj), []byte("{}")) {
		sep = ""
	}
	out := append([]byte(nil), obj[:len(obj)-1]...)
	out = append(out, sep...)
	out = append(out, marshal(key)...)
	out = append(out, ':')
	out = append(out, value...)
	return append(out, '}')
}
