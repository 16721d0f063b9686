package bloat

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strconv"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// bpe is one loaded encoding: tiktoken's mergeable ranks and its piece
// splitter. It is read-only once built, so any number of goroutines may
// use it at once.
type bpe struct {
	ranks *vocab
	piece func(string) int
}

// loadBPE builds an encoding from the official .tiktoken rank file that
// github.com/pkoukk/tiktoken-go-loader embeds (byte-identical to OpenAI's;
// the tests check its SHA-256 against tiktoken's expected_hash). Every key
// is a substring of one decoded buffer, held in a pointer-free table.
func loadBPE(file string, piece func(string) int) (*bpe, error) {
	data, err := assets.Assets.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	lines := bytes.Count(data, []byte{'\n'})
	arena := make([]byte, 0, base64.StdEncoding.DecodedLen(len(data)))
	entries := make([]vocabEntry, 0, lines)
	for line := range bytes.Lines(data) {
		line = bytes.TrimRight(line, "\n")
		if len(line) == 0 {
			continue
		}
		tok, rank, ok := bytes.Cut(line, []byte{' '})
		if !ok {
			return nil, fmt.Errorf("%s: malformed line %q", file, line)
		}
		r, err := strconv.Atoi(string(rank))
		if err != nil || r < 0 {
			return nil, fmt.Errorf("%s: bad rank in %q", file, line)
		}
		start := len(arena)
		arena, err = base64.StdEncoding.AppendDecode(arena, tok)
		if err != nil {
			return nil, fmt.Errorf("%s: bad token in %q: %w", file, line, err)
		}
		if len(arena) == start || len(arena)-start > 0xffff {
			return nil, fmt.Errorf("%s: token of %d bytes in %q", file, len(arena)-start, line)
		}
		entries = append(entries, vocabEntry{start, len(arena), r})
	}
	ranks := newVocab(string(arena), entries)
	// Byte-level BPE needs every single byte to be a token, or a piece
	// could fail to encode.
	for b := range 256 {
		if _, ok := ranks.rank(string([]byte{byte(b)})); !ok {
			return nil, fmt.Errorf("%s: byte %#x has no rank", file, b)
		}
	}
	return &bpe{ranks: ranks, piece: piece}, nil
}

// encode splits text into pieces and each piece into tokens, calling yield
// with each token's rank (its id). text must be valid UTF-8.
func (e *bpe) encode(text string, yield func(rank uint32)) {
	var scratch mergeScratch
	for len(text) > 0 {
		n := e.piece(text)
		p := text[:n]
		text = text[n:]
		if r, ok := e.ranks.rank(p); ok {
			yield(r)
			continue
		}
		bounds := scratch.merge(e.ranks, p)
		for i := 0; i+1 < len(bounds); i++ {
			r, _ := e.ranks.rank(p[bounds[i]:bounds[i+1]])
			yield(r)
		}
	}
}

// count returns the number of tokens of text, which must be valid UTF-8.
func (e *bpe) count(text string) int {
	var scratch mergeScratch
	total := 0
	for len(text) > 0 {
		n := e.piece(text)
		p := text[:n]
		text = text[n:]
		if _, ok := e.ranks.rank(p); ok {
			total++
			continue
		}
		total += len(scratch.merge(e.ranks, p)) - 1
	}
	return total
}
