package tokens

import "context"

// counter counts pieces. It keeps its buffers between pieces, so a long list
// of short pieces allocates nothing, and it polls ctx at a fixed interval of
// work, so that a hostile description cannot hold off a cancellation.
type counter struct {
	ctx  context.Context
	v    *vocab
	work int // units of work since ctx was last polled
	next []int32
	prev []int32
	rank []uint32 // rank of the pair that starts at a part, or noRank
	heap []uint64 // rank<<32 | start: least rank first, leftmost on ties
	err  error
}

// pollEvery is how much work (bytes scanned, merges made) passes between two
// looks at ctx: about a millisecond at worst, so cancellation is prompt and
// the look costs nothing measurable.
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
// least rank, the leftmost on a tie. Here the candidate pairs wait in a heap
// keyed (rank, start) and parts are a linked list over byte offsets, so a
// merge costs O(log n) instead of a scan of every part: the result is the
// same merge order, hence the same parts.
//
// A heap entry is current exactly when rank[start] still holds its rank: a
// pair only ever grows to the right, a longer byte string has another rank,
// and so an entry whose pair has changed can never match again.
func (c *counter) merge(s string) int {
	n := len(s)
	c.next = grow(c.next, n)
	c.prev = grow(c.prev, n)
	c.rank = grow(c.rank, n)
	c.heap = c.heap[:0]
	next, prev, rank := c.next, c.prev, c.rank
	for i := 0; i < n; i++ {
		next[i], prev[i], rank[i] = int32(i+1), int32(i-1), noRank
	}
	for i := 0; i+1 < n; i++ {
		if r := c.v.rank(s[i : i+2]); r != noRank {
			rank[i] = r
			c.heap = append(c.heap, uint64(r)<<32|uint64(i))
		}
	}
	heapify(c.heap)
	parts := n
	for len(c.heap) > 0 {
		if c.spend(1) {
			return parts
		}
		top := c.heap[0]
		c.heap = pop(c.heap)
		i, r := int32(top), uint32(top>>32)
		if rank[i] != r {
			continue
		}
		// Merge part i with its right neighbour j.
		j := next[i]
		k := next[j]
		next[i] = k
		if int(k) < n {
			prev[k] = i
		}
		rank[j] = noRank
		parts--
		rank[i] = noRank
		if int(k) < n {
			if r := c.v.rank(s[i:next[k]]); r != noRank {
				rank[i] = r
				c.heap = push(c.heap, uint64(r)<<32|uint64(i))
			}
		}
		if p := prev[i]; p >= 0 {
			rank[p] = noRank
			if r := c.v.rank(s[p:k]); r != noRank {
				rank[p] = r
				c.heap = push(c.heap, uint64(r)<<32|uint64(p))
			}
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

// A binary min-heap of uint64 keys, written out because container/heap's
// interface calls cost more than the comparisons on this hot path.

func heapify(h []uint64) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(h, i)
	}
}

func push(h []uint64, x uint64) []uint64 {
	h = append(h, x)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h[p] <= x {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = x
	return h
}

func pop(h []uint64) []uint64 {
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	if last > 0 {
		down(h, 0)
	}
	return h
}

func down(h []uint64, i int) {
	n := len(h)
	x := h[i]
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r] < h[l] {
			m = r
		}
		if h[m] >= x {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = x
}
