package transport

import "github.com/tidwall/gjson"

// Shape measures a JSON text in one pass, without parsing it: how deep its
// arrays and objects nest, and what walking it costs a walker that reads
// each container's members again at every level above it (gjson's ForEach
// and Get do): each byte counted once for every container that holds it.
// Brackets inside strings are text, not nesting.
func Shape(b []byte) (depth int, walk int64) {
	d := 0
	in := false
	for i := 0; i < len(b); i++ {
		walk += int64(d)
		c := b[i]
		if in {
			switch c {
			case '\\':
				i++
				walk += int64(d)
			case '"':
				in = false
			}
			continue
		}
		switch c {
		case '"':
			in = true
		case '[', '{':
			d++
			depth = max(depth, d)
		case ']', '}':
			d--
		}
	}
	return depth, walk
}

// shallowDepth is how deep a text may nest to be checked by gjson, whose
// check recurses once per level (a 16 MiB line of brackets is 8 million
// levels, a gigabyte of stack: the end of the process); a deeper one is
// checked by Valid.
const shallowDepth = 1000

// validJSON reports whether b is one JSON value: gjson's check for what
// nests no deeper than shallowDepth, Valid's for the rest.
func validJSON(b []byte) bool {
	if d, _ := Shape(b); d > shallowDepth {
		return Valid(b)
	}
	return gjson.ValidBytes(b)
}

// Valid reports whether b is one JSON value (RFC 8259), in one pass with
// a stack of its own, so that depth costs a byte of memory a level and no
// recursion. It accepts what gjson.Valid accepts.
func Valid(b []byte) bool {
	var stack []byte // '{' or '[' for each open container
	i := skipSpace(b, 0)
	for {
		// A value starts at i.
		if i >= len(b) {
			return false
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			stack = append(stack, c)
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == closing(c) {
				stack = stack[:len(stack)-1]
				i++
				break
			}
			if c == '{' {
				var ok bool
				if i, ok = memberKey(b, i); !ok {
					return false
				}
			}
			continue
		case c == '"':
			var ok bool
			if i, ok = stringToken(b, i); !ok {
				return false
			}
		case c == '-' || c >= '0' && c <= '9':
			var ok bool
			if i, ok = numberToken(b, i); !ok {
				return false
			}
		default:
			ok := false
			for _, lit := range []string{"true", "false", "null"} {
				if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
					i, ok = i+len(lit), true
					break
				}
			}
			if !ok {
				return false
			}
		}
		// A value ended at i: a comma, or the end of containers.
		for {
			i = skipSpace(b, i)
			if len(stack) == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			top := stack[len(stack)-1]
			if b[i] == ',' {
				i = skipSpace(b, i+1)
				if top == '{' {
					var ok bool
					if i, ok = memberKey(b, i); !ok {
						return false
					}
				}
				break
			}
			if b[i] != closing(top) {
				return false
			}
			stack = stack[:len(stack)-1]
			i++
		}
	}
}

func closing(open byte) byte {
	if open == '{' {
		return '}'
	}
	return ']'
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// memberKey reads a key and its colon at i, and returns where the value
// starts.
func memberKey(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	i, ok := stringToken(b, i)
	if !ok {
		return i, false
	}
	if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
		return i, false
	}
	return skipSpace(b, i+1), true
}

func stringToken(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c < ' ':
			return i, false
		case c == '"':
			return i + 1, true
		case c == '\\':
			i++
			if i >= len(b) {
				return i, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for k := 0; k < 4; k++ {
					i++
					if i >= len(b) || !isHex(b[i]) {
						return i, false
					}
				}
			default:
				return i, false
			}
		}
	}
	return i, false
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func numberToken(b []byte, i int) (int, bool) {
	digits := func() bool {
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > start
	}
	if b[i] == '-' {
		i++
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if !digits() {
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return i, false
		}
	}
	return i, true
}
