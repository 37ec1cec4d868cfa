package inputfile

import (
	"bytes"
	"encoding/binary"
)

// MaxIndex bounds the git index read to tell a tracked file from one that
// is not (a checkout of 100,000 files has an index near 10 MiB).
const MaxIndex = 256 << 20

// indexHas reports whether the git index idx (format 2, 3 or 4, object ids
// of SHA-1 or SHA-256) lists path as a regular file or an executable at
// stage 0, neither intent-to-add nor skip-worktree. An index it cannot read
// through (a split or sparse index, say) lists nothing: the caller refuses.
func indexHas(idx []byte, path string) bool {
	if len(idx) < 12 || string(idx[:4]) != "DIRC" {
		return false
	}
	// The object id's length is not in the index; an entry parsed with the
	// wrong one fails the checks of its padding and order.
	for _, hashLen := range []int{20, 32} {
		if found, ok := scanIndex(idx, path, hashLen); ok {
			return found
		}
	}
	return false
}

// scanIndex walks the entries; ok is false when they do not parse.
func scanIndex(idx []byte, path string, hashLen int) (found, ok bool) {
	version := binary.BigEndian.Uint32(idx[4:8])
	if version < 2 || version > 4 {
		return false, false
	}
	count := int(binary.BigEndian.Uint32(idx[8:12]))
	off := 12
	var prev []byte
	fixed := 40 + hashLen + 2
	for range count {
		start := off
		if off+fixed > len(idx) {
			return false, false
		}
		mode := binary.BigEndian.Uint32(idx[off+24 : off+28])
		flags := binary.BigEndian.Uint16(idx[off+40+hashLen : off+fixed])
		off += fixed
		var ext uint16
		if flags&0x4000 != 0 {
			if version < 3 || off+2 > len(idx) {
				return false, false
			}
			ext = binary.BigEndian.Uint16(idx[off : off+2])
			off += 2
		}
		var name []byte
		if version == 4 {
			strip, n := indexVarint(idx[off:])
			if n == 0 || strip > len(prev) {
				return false, false
			}
			off += n
			end := bytes.IndexByte(idx[off:], 0)
			if end < 0 {
				return false, false
			}
			name = append(append([]byte(nil), prev[:len(prev)-strip]...), idx[off:off+end]...)
			off += end + 1
		} else {
			end := bytes.IndexByte(idx[off:], 0)
			if end < 0 {
				return false, false
			}
			name = idx[off : off+end]
			// An entry is padded with 1 to 8 NULs to a multiple of 8 bytes.
			next := start + (off-start+end+8)&^7
			if next > len(idx) || len(bytes.Trim(idx[off+end:next], "\x00")) != 0 {
				return false, false
			}
			off = next
		}
		if nl := int(flags & 0xfff); nl < 0xfff && nl != len(name) {
			return false, false
		}
		if prev != nil && bytes.Compare(prev, name) > 0 {
			return false, false
		}
		prev = name
		stage := (flags >> 12) & 3
		const skipWorktree, intentToAdd = 0x4000, 0x2000
		if string(name) == path && stage == 0 && ext&(skipWorktree|intentToAdd) == 0 &&
			(mode&0o170000 == 0o100000) {
			found = true
		}
	}
	return found, true
}

// indexVarint decodes the offset varint of index format 4; n is 0 on
// malformed input.
func indexVarint(b []byte) (v, n int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v = int(c & 0x7f)
	n = 1
	for c&0x80 != 0 {
		if n >= len(b) || n > 8 {
			return 0, 0
		}
		c = b[n]
		n++
		v = (v+1)<<7 | int(c&0x7f)
	}
	return v, n
}
