package bloat

import "math"

// noRank marks a pair of parts that is not a token.
const noRank = math.MaxUint32

// heapFrom is the piece length in bytes from which merge uses a heap. Below
// it the plain scan is faster; above it the scan's O(n²) shows: a 100 KB run
// of spaces is one piece, and padding is what this package looks for.
const heapFrom = 128

// mergeScratch holds buffers that merge reuses across the pieces of one
// text, so that counting allocates little. It is not shared between
// goroutines.
type mergeScratch struct {
	bounds []int
	ranks  []uint32
	nodes  []mergeNode
	heap   mergeHeap
}

// merge runs tiktoken's byte-pair merge on piece: while some pair of
// adjacent parts is a token, merge the pair of lowest rank, the leftmost
// one on a tie. It returns the part boundaries, 0 and len(piece) included;
// the slice is valid until the next call.
func (m *mergeScratch) merge(ranks *vocab, piece string) []int {
	if len(piece) < heapFrom {
		return m.scan(ranks, piece)
	}
	return m.heapMerge(ranks, piece)
}

// scan is tiktoken's own _byte_pair_merge: ranks[i] is the rank of the
// pair of parts starting at bounds[i].
func (m *mergeScratch) scan(ranks *vocab, piece string) []int {
	n := len(piece)
	bounds, rk := m.bounds[:0], m.ranks[:0]
	for i := 0; i <= n; i++ {
		bounds = append(bounds, i)
		rk = append(rk, noRank)
	}
	pairRank := func(i int) uint32 {
		if i+2 < len(bounds) {
			if r, ok := ranks.rank(piece[bounds[i]:bounds[i+2]]); ok {
				return r
			}
		}
		return noRank
	}
	for i := 0; i+2 < len(bounds); i++ {
		rk[i] = pairRank(i)
	}
	for {
		best, at := uint32(noRank), -1
		for i := 0; i+1 < len(bounds); i++ {
			if rk[i] < best {
				best, at = rk[i], i
			}
		}
		if at < 0 {
			break
		}
		bounds = append(bounds[:at+1], bounds[at+2:]...)
		rk = append(rk[:at+1], rk[at+2:]...)
		rk[at] = pairRank(at)
		if at > 0 {
			rk[at-1] = pairRank(at - 1)
		}
	}
	m.bounds, m.ranks = bounds, rk
	return bounds
}

// mergeNode is a part boundary in heapMerge's doubly linked list; rank is
// that of the pair of parts starting at it. Offsets are int32 to halve the
// memory: a single piece over 2 GiB is not supported, and no API accepts a
// prompt that size.
type mergeNode struct {
	prev, next int32
	rank       uint32
}

// heapMerge gives the same parts as scan in O(n log n): candidate pairs sit
// in a min-heap ordered by (rank, offset), so the leftmost lowest pair comes
// first, and an entry whose rank no longer matches its node is stale and
// skipped.
func (m *mergeScratch) heapMerge(ranks *vocab, piece string) []int {
	n := int32(len(piece))
	nodes := m.nodes[:0]
	for i := int32(0); i <= n; i++ {
		nodes = append(nodes, mergeNode{prev: i - 1, next: i + 1, rank: noRank})
	}
	nodes[n].next = -1
	pairRank := func(i int32) uint32 {
		j := nodes[i].next
		if j < 0 {
			return noRank
		}
		k := nodes[j].next
		if k < 0 {
			return noRank
		}
		if r, ok := ranks.rank(piece[i:k]); ok {
			return r
		}
		return noRank
	}
	h := m.heap[:0]
	for i := int32(0); i+2 <= n; i++ {
		if r := pairRank(i); r != noRank {
			nodes[i].rank = r
			h = append(h, mergeCandidate{r, i})
		}
	}
	h.init()
	for len(h) > 0 {
		top := h.pop()
		i := top.offset
		if nodes[i].rank != top.rank {
			continue
		}
		j := nodes[i].next
		k := nodes[j].next
		nodes[j].rank = noRank // j leaves the list
		nodes[i].next = k
		if k >= 0 {
			nodes[k].prev = i
		}
		for _, b := range [2]int32{i, nodes[i].prev} {
			if b < 0 {
				continue
			}
			nodes[b].rank = pairRank(b)
			if nodes[b].rank != noRank {
				h.push(mergeCandidate{nodes[b].rank, b})
			}
		}
	}
	bounds := m.bounds[:0]
	for i := int32(0); i >= 0; i = nodes[i].next {
		bounds = append(bounds, int(i))
	}
	m.nodes, m.heap, m.bounds = nodes, h, bounds
	return bounds
}

type mergeCandidate struct {
	rank   uint32
	offset int32
}

// mergeHeap is a binary min-heap of candidates. It is typed rather than
// built on container/heap so that pushes do not allocate through an
// interface.
type mergeHeap []mergeCandidate

func (h mergeHeap) less(a, b int) bool {
	if h[a].rank != h[b].rank {
		return h[a].rank < h[b].rank
	}
	return h[a].offset < h[b].offset
}

func (h mergeHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *mergeHeap) push(c mergeCandidate) {
	*h = append(*h, c)
	h.up(len(*h) - 1)
}

func (h *mergeHeap) pop() mergeCandidate {
	old := *h
	top := old[0]
	last := len(old) - 1
	old[0] = old[last]
	*h = old[:last]
	h.down(0)
	return top
}

func (h mergeHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			return
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

func (h mergeHeap) down(i int) {
	for {
		child := 2*i + 1
		if child >= len(h) {
			return
		}
		if right := child + 1; right < len(h) && h.less(right, child) {
			child = right
		}
		if !h.less(child, i) {
			return
		}
		h[i], h[child] = h[child], h[i]
		i = child
	}
}
