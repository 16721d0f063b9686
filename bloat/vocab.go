package bloat

import (
	"hash/maphash"
	"math/bits"
)

// vocab maps a token's bytes to its rank. It is an open-addressing hash
// table over one string holding every token, with no pointer per entry:
// a map[string]uint32 of o200k_base's 200,000 tokens held 200,000 string
// pointers that the garbage collector traced on every cycle, which cost the
// whole service (not only tokenising) several microseconds per request.
// Here the collector sees two objects and scans neither's contents.
type vocab struct {
	tokens string // every token's bytes, one after the other
	slots  []slot // len is a power of two, at most half full
	seed   maphash.Seed
}

// len returns the number of tokens (the tests' check of a vocabulary).
func (v *vocab) len() int {
	n := 0
	for _, s := range v.slots {
		if s.n != 0 {
			n++
		}
	}
	return n
}

// slot is one token: its bytes are tokens[off : off+n]. n == 0 marks an
// empty slot (no token is empty).
type slot struct {
	off  uint32
	rank uint32
	n    uint16
}

// vocabEntry is a token to add: tokens[start:end] has rank.
type vocabEntry struct{ start, end, rank int }

// newVocab builds the table. Tokens must be non-empty, shorter than 64 KiB
// and distinct; tokens must be under 4 GiB (o200k_base's is 1.6 MB).
func newVocab(tokens string, entries []vocabEntry) *vocab {
	size := 1 << bits.Len(uint(2*len(entries)))
	v := &vocab{tokens: tokens, slots: make([]slot, size), seed: maphash.MakeSeed()}
	mask := uint64(size - 1)
	for _, e := range entries {
		i := maphash.String(v.seed, tokens[e.start:e.end]) & mask
		for v.slots[i].n != 0 {
			i = (i + 1) & mask
		}
		v.slots[i] = slot{off: uint32(e.start), rank: uint32(e.rank), n: uint16(e.end - e.start)}
	}
	return v
}

// rank returns the rank of the token s, if s is a token.
func (v *vocab) rank(s string) (uint32, bool) {
	mask := uint64(len(v.slots) - 1)
	for i := maphash.String(v.seed, s) & mask; ; i = (i + 1) & mask {
		sl := v.slots[i]
		if sl.n == 0 {
			return 0, false
		}
		if int(sl.n) == len(s) && v.tokens[sl.off:sl.off+uint32(sl.n)] == s {
			return sl.rank, true
		}
	}
}
