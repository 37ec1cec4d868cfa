package faults

// garble corrupts a reply's bytes so that it no longer parses: a quote
// and a brace in the middle become garbage. What the client does with an
// unparseable line is its policy's business.
func garble(raw []byte) []byte {
	out := append([]byte(nil), raw...)
	for i, n := len(out)/2, 0; i < len(out) && n < 3; i++ {
		if out[i] == '"' || out[i] == '{' || out[i] == ':' || out[i] == ',' {
			out[i] = '\x7f'
			n++
		}
	}
	return out
}
