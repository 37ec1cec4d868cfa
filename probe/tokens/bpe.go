package tokens

import "context"

// counter counts pieces. It keeps its buffers between pieces, so a long list
// of short pieces allocates nothing, and it polls ctx at a fixed interval of
// work, so that a hostile description cannot hold off a cancellation.
type counter struct {
	ctx   context.Context
	v     *vocab
	work  int // units of work since ctx was last polled
	err   error
	next  []int32
	prev  []int32
	pairs pairHeap
}

// pollEvery is how much work (bytes scanned, merges made) passes between two
// looks at ctx: well under a millisecond, so cancellation is prompt and the
// look costs nothing measurable.
const pollEvery = 1 << 16

// spend records n units of work and reports whether the count must stop.
func (c *counter) spend(n int) bool {
	c.work += n
	if c.work < pollEvery {
		return c.err != nil
	}
	c.work = 0
	if c.err == nil {
		c.err = c.ctx.Err()
	}
	return c.err != nil
}

// piece returns the number of tokens in one piece of pre-tokenized text.
func (c *counter) piece(s string) int {
	if len(s) == 1 || c.v.rank(s) != noRank {
		return 1
	}
	return c.merge(s)
}

// merge runs byte-pair encoding over s and returns how many parts remain.
// tiktoken merges, again and again, the adjacent pair whose bytes have the
// least rank, the leftmost on a tie, then re-ranks the pairs the merged part
// now forms with its neighbours. Here parts are a linked list over byte
// offsets and each pair sits in a heap keyed (rank, start), so a merge costs
// O(log n) instead of a scan of every part, and the merges happen in the
// same order, hence the same parts.
func (c *counter) merge(s string) int {
	n := len(s)
	c.next = grow(c.next, n)
	c.prev = grow(c.prev, n)
	next, prev, h := c.next, c.prev, &c.pairs
	h.reset(n)
	for i := 0; i < n; i++ {
		next[i], prev[i] = int32(i+1), int32(i-1)
	}
	for i := 0; i+1 < n; i++ {
		if r := c.v.rank(s[i : i+2]); r != noRank {
			h.add(int32(i), r)
		}
	}
	h.init()
	parts := n
	for h.len() > 0 {
		if c.spend(1) {
			return parts
		}
		i := h.popMin()
		// Part i absorbs its right neighbour j; j's pair goes with it.
		j := next[i]
		k := next[j]
		next[i] = k
		if int(k) < n {
			prev[k] = i
		}
		h.set(j, noRank)
		parts--
		if int(k) < n {
			h.set(i, c.v.rank(s[i:next[k]]))
		}
		if p := prev[i]; p >= 0 {
			h.set(p, c.v.rank(s[p:k]))
		}
	}
	return parts
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// pairHeap is a 4-ary min-heap of the pairs that are tokens, keyed
// rank<<32 | start so that the least rank comes first and, among equal
// ranks, the leftmost. Each start has at most one entry, and where[start]
// finds it, so a pair whose rank changes is moved in place: the heap never
// holds more than one entry per part, and holds no stale ones. Four children
// per node halve the depth of a binary heap, and they share a cache line.
type pairHeap struct {
	keys  []uint64
	where []int32 // index in keys of each start's entry, or -1
}

func (h *pairHeap) reset(n int) {
	h.keys = h.keys[:0]
	if cap(h.keys) < n {
		h.keys = make([]uint64, 0, n)
	}
	h.where = grow(h.where, n)
	for i := range h.where {
		h.where[i] = -1
	}
}

func (h *pairHeap) len() int { return len(h.keys) }

// add appends an entry without ordering; init orders them all at once.
func (h *pairHeap) add(start int32, rank uint32) {
	h.where[start] = int32(len(h.keys))
	h.keys = append(h.keys, uint64(rank)<<32|uint64(uint32(start)))
}

func (h *pairHeap) init() {
	if len(h.keys) < 2 {
		return
	}
	for i := (len(h.keys) - 2) / 4; i >= 0; i-- {
		h.down(i)
	}
}

// popMin removes the least entry and returns its start.
func (h *pairHeap) popMin() int32 {
	start := int32(uint32(h.keys[0]))
	h.removeAt(0)
	return start
}

// set gives the pair at start a new rank, or removes it for noRank.
func (h *pairHeap) set(start int32, rank uint32) {
	at := h.where[start]
	switch {
	case rank == noRank && at >= 0:
		h.removeAt(int(at))
	case rank == noRank:
	case at < 0:
		h.add(start, rank)
		h.up(len(h.keys) - 1)
	default:
		old := h.keys[at]
		h.keys[at] = uint64(rank)<<32 | uint64(uint32(start))
		if h.keys[at] < old {
			h.up(int(at))
		} else {
			h.down(int(at))
		}
	}
}

func (h *pairHeap) removeAt(i int) {
	h.where[uint32(h.keys[i])] = -1
	last := len(h.keys) - 1
	if i != last {
		h.keys[i] = h.keys[last]
		h.where[uint32(h.keys[i])] = int32(i)
	}
	h.keys = h.keys[:last]
	if i < last {
		h.down(i)
		h.up(i)
	}
}

func (h *pairHeap) up(i int) {
	keys, x := h.keys, h.keys[i]
	for i > 0 {
		p := (i - 1) / 4
		if keys[p] <= x {
			break
		}
		keys[i] = keys[p]
		h.where[uint32(keys[i])] = int32(i)
		i = p
	}
	keys[i] = x
	h.where[uint32(x)] = int32(i)
}

func (h *pairHeap) down(i int) {
	keys, x := h.keys, h.keys[i]
	n := len(keys)
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for k := c + 1; k < c+4 && k < n; k++ {
			if keys[k] < keys[m] {
				m = k
			}
		}
		if keys[m] >= x {
			break
		}
		keys[i] = keys[m]
		h.where[uint32(keys[i])] = int32(i)
		i = m
	}
	keys[i] = x
	h.where[uint32(x)] = int32(i)
}
