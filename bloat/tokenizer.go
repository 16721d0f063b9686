package bloat

import (
	"fmt"
	"sync"
)

// Counter counts tokens. It loads an encoding's vocabulary the first time
// that encoding is used and keeps it; see Load for the cost. The zero value
// is ready to use, and a Counter is safe for concurrent use. It must not be
// copied after first use. A service wants one Counter for its lifetime:
// each Counter holds its own copy of the vocabularies.
type Counter struct {
	o200k, cl100k lazyBPE
}

// NewCounter returns an empty Counter; it is the same as new(Counter).
func NewCounter() *Counter { return new(Counter) }

// lazyBPE loads one encoding at most once, on first use.
type lazyBPE struct {
	once sync.Once
	bpe  *bpe
	err  error
}

func (l *lazyBPE) get(file string, piece func(string) int) (*bpe, error) {
	l.once.Do(func() { l.bpe, l.err = loadBPE(file, piece) })
	return l.bpe, l.err
}

func (c *Counter) encoding(enc Encoding) (*bpe, Encoding, error) {
	enc, err := ParseEncoding(string(enc))
	if err != nil {
		return nil, "", err
	}
	var b *bpe
	switch enc {
	case O200kBase:
		b, err = c.o200k.get("o200k_base.tiktoken", pieceO200k)
	case Cl100kBase:
		b, err = c.cl100k.get("cl100k_base.tiktoken", pieceCl100k)
	}
	if err != nil {
		// The vocabulary is compiled in, so this is a broken build, not
		// bad input; it is returned rather than panicked for the caller
		// to log.
		return nil, enc, fmt.Errorf("bloat: load %s: %w", enc, err)
	}
	return b, enc, nil
}

// Load loads enc's vocabulary now, so that the first Count does not pay for
// it. Measured by BenchmarkLoad on the project's 2-core machine: o200k_base
// takes 30 to 60 ms, allocates 19 MB on the way and keeps 7.3 MiB;
// cl100k_base takes 12 to 30 ms, allocates 9 MB and keeps 3.6 MiB. An
// empty enc means O200kBase, as everywhere in this package.
func (c *Counter) Load(enc Encoding) error {
	_, _, err := c.encoding(enc)
	return err
}

// Count returns the number of tokens that tiktoken's encode_ordinary gives
// for text under enc (empty means O200kBase). Special-token strings such as
// "<|endoftext|>" count as the plain text they are in a prompt. Invalid
// UTF-8 is counted as a Python or JavaScript client would have sent it,
// with each maximal invalid sequence replaced by U+FFFD. Time is linear in
// len(text) up to a log factor, whatever the text: long runs of one
// character cost no more than prose.
func (c *Counter) Count(enc Encoding, text string) (int, error) {
	b, _, err := c.encoding(enc)
	if err != nil {
		return 0, err
	}
	return b.count(validUTF8(text)), nil
}

// encode returns the token ids of text; tests compare them with tiktoken's.
func (c *Counter) encode(enc Encoding, text string) ([]uint32, error) {
	b, _, err := c.encoding(enc)
	if err != nil {
		return nil, err
	}
	var ids []uint32
	b.encode(validUTF8(text), func(r uint32) { ids = append(ids, r) })
	return ids, nil
}
