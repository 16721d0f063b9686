package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// MaxValueBytes bounds what Read holds in memory at once: one NDJSON line,
// one CSV row's line, or one JSON value of a document (a page, a row, an
// OTLP document). A longer NDJSON line is a bad item and the import goes
// on; a larger value inside a JSON document stops the import, since the
// decoder cannot find where it ends without reading it.
const MaxValueBytes = 64 << 20

// readChunk caps each read the JSON decoder makes, so that its read-ahead
// past the value it decodes stays small and the MaxValueBytes check is
// close to the value's own size.
const readChunk = 64 << 10

var errLineTooLong = fmt.Errorf("the line is longer than %d bytes", MaxValueBytes)

// lines reads one line at a time, each cut at max bytes.
type lines struct {
	br  *bufio.Reader
	max int
	buf []byte
	n   int // number of the line last returned, 1-based
}

// next returns the next line without its line ending. tooLong reports that
// the line was longer than max: its text is cut and the rest discarded. The
// slice is reused by the next call. err is io.EOF after the last line.
func (l *lines) next() (line []byte, tooLong bool, err error) {
	l.buf = l.buf[:0]
	got := false
	for {
		chunk, err := l.br.ReadSlice('\n')
		got = got || len(chunk) > 0
		if room := l.max - len(l.buf); len(chunk) > room {
			l.buf = append(l.buf, chunk[:room]...)
			tooLong = true
		} else {
			l.buf = append(l.buf, chunk...)
		}
		switch {
		case err == nil:
			l.n++
			return trimEOL(l.buf), tooLong, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && got:
			l.n++
			return trimEOL(l.buf), tooLong, nil
		default:
			return nil, false, err
		}
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// skipSpace consumes a UTF-8 byte order mark and the white space before the
// first value, and returns how many lines it passed. err is io.EOF when
// there is nothing else.
func skipSpace(br *bufio.Reader) (int, error) {
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		br.Discard(3) // cannot fail: the bytes are buffered
	}
	n := 0
	for {
		c, err := br.ReadByte()
		if err != nil {
			return n, err
		}
		switch c {
		case '\n':
			n++
		case ' ', '\t', '\r':
		default:
			return n, br.UnreadByte()
		}
	}
}

// jsonValues calls fn with each JSON value of r and its position. It
// accepts what scripts that page through an API save: NDJSON (one value a
// line; pos "line N"), one JSON document, or a JSON array of them (pos
// "UNIT N", counting from 1), even several such values one after another.
// In NDJSON a bad line is passed on to fn to report as a bad item; in a
// document, invalid JSON stops the reading with an error naming its line
// and byte offset.
//
// NDJSON is told from a document by its first line: a complete JSON
// value, or a line that looks like one ({…}) followed by a line that
// starts another. A pretty-printed document never has that shape.
func jsonValues(r io.Reader, unit string, limit int, fn func(raw []byte, pos string, err error) error) error {
	br := bufio.NewReaderSize(r, readChunk)
	skipped, err := skipSpace(br)
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		return err
	}
	first, _ := br.Peek(1) // skipSpace left a byte to peek
	if first[0] != '{' {
		return streamValues(br, unit, skipped, limit, first[0] == '[', fn)
	}
	ls := &lines{br: br, max: limit, n: skipped}
	head, tooLong, err := ls.next()
	if err != nil {
		return err
	}
	held := []heldLine{{bytes.Clone(head), tooLong}}
	if tooLong || json.Valid(head) {
		return ndjsonValues(ls, held, fn)
	}
	if t := bytes.TrimSpace(head); t[len(t)-1] == '}' {
		next, nextLong, err := ls.next()
		switch {
		case errors.Is(err, io.EOF):
		case err != nil:
			return err
		default:
			held = append(held, heldLine{bytes.Clone(next), nextLong})
			if nextLong || bytes.HasPrefix(bytes.TrimSpace(next), []byte("{")) {
				// A bad first record followed by a second: NDJSON.
				return ndjsonValues(ls, held, fn)
			}
		}
	}
	// A document: give the decoder back the lines read to tell.
	var again bytes.Buffer
	for _, h := range held {
		again.Write(h.text)
		again.WriteByte('\n')
	}
	return streamValues(io.MultiReader(&again, br), unit, skipped, limit, false, fn)
}

// heldLine is a line read to tell NDJSON from a document.
type heldLine struct {
	text    []byte
	tooLong bool
}

// ndjsonValues passes the lines already read (held, the last of them line
// ls.n) and then every further line to fn.
func ndjsonValues(ls *lines, held []heldLine, fn func([]byte, string, error) error) error {
	for i, h := range held {
		if err := ndjsonLine(h.text, ls.n-len(held)+1+i, h.tooLong, fn); err != nil {
			return err
		}
	}
	for {
		line, tooLong, err := ls.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := ndjsonLine(line, ls.n, tooLong, fn); err != nil {
			return err
		}
	}
}

func ndjsonLine(line []byte, n int, tooLong bool, fn func([]byte, string, error) error) error {
	pos := fmt.Sprintf("line %d", n)
	if tooLong {
		return fn(nil, pos, errLineTooLong)
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	return fn(line, pos, nil)
}

// streamValues decodes r as a sequence of JSON values. When array is set,
// the first value is a top-level array whose elements are decoded one at a
// time, so a JSON array of a million rows never sits in memory whole;
// later values are decoded whole, an array standing for its elements.
func streamValues(r io.Reader, unit string, lineBase, limit int, array bool, fn func([]byte, string, error) error) error {
	s := &stream{cr: &countReader{r: r, limit: int64(limit)}, lineBase: lineBase}
	s.dec = json.NewDecoder(s.cr)
	ord := 0
	emit := func(raw []byte) error {
		ord++
		return fn(raw, fmt.Sprintf("%s %d", unit, ord), nil)
	}
	if array {
		if _, err := s.dec.Token(); err != nil { // the '['
			return s.fail(err)
		}
		for s.dec.More() {
			var raw json.RawMessage
			if err := s.dec.Decode(&raw); err != nil {
				return s.fail(err)
			}
			s.cr.mark = s.cr.n
			if err := emit(raw); err != nil {
				return err
			}
		}
		if _, err := s.dec.Token(); err != nil { // the ']'
			return s.fail(err)
		}
	}
	for {
		var raw json.RawMessage
		err := s.dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return s.fail(err)
		}
		s.cr.mark = s.cr.n
		if raw[0] != '[' {
			if err := emit(raw); err != nil {
				return err
			}
			continue
		}
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil { // cannot fail: the decoder checked it
			return s.fail(err)
		}
		for _, el := range elems {
			if err := emit(el); err != nil {
				return err
			}
		}
	}
}

// stream is a JSON decoder over a countReader, to say where an error is.
type stream struct {
	cr       *countReader
	dec      *json.Decoder
	lineBase int // lines skipped before the decoder's first byte
}

// fail turns a decoding error into a file-level error with its byte offset
// and line. Yield's own errors never come through here.
func (s *stream) fail(err error) error {
	var tooLarge *errTooLarge
	if errors.As(err, &tooLarge) {
		return fmt.Errorf("a JSON value at line %d is larger than %d bytes; save the pages as NDJSON, one a line", s.lineAt(s.dec.InputOffset()), tooLarge.limit)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("the JSON ends early, at byte offset %d (line %d): the file is cut short", s.cr.n, s.lineBase+s.cr.nl+1)
	}
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		return err
	}
	// The decoder stops at the start of the bad value, with the value's
	// bytes read so far still buffered: rescan them to find the offset.
	off := s.dec.InputOffset()
	buf, _ := io.ReadAll(s.dec.Buffered()) // reading a bytes.Reader cannot fail
	if err := json.Unmarshal(buf, new(json.RawMessage)); errors.As(err, &syn) {
		off += max(syn.Offset-1, 0)
	}
	return fmt.Errorf("not valid JSON at byte offset %d (line %d): %s", off, s.lineAt(off), syn.Error())
}

// lineAt is the 1-based line of byte offset off, which must not be before
// the decoder's position. The decoder has read cr.n bytes and cr.nl
// newlines; those past its position are still in its buffer.
func (s *stream) lineAt(off int64) int {
	start := s.dec.InputOffset()
	buf, _ := io.ReadAll(s.dec.Buffered())
	nl := s.cr.nl - bytes.Count(buf, []byte{'\n'})
	if k := off - start; k > 0 {
		nl += bytes.Count(buf[:min(k, int64(len(buf)))], []byte{'\n'})
	}
	return s.lineBase + nl + 1
}

// countReader counts bytes and newlines, and fails once the decoder has
// read more than limit bytes (plus one read of slack) since the last value
// ended: the bound on one value in memory.
type countReader struct {
	r     io.Reader
	limit int64
	n     int64 // bytes read
	nl    int   // newlines read
	mark  int64 // n when the last value was decoded
}

type errTooLarge struct{ limit int64 }

func (e *errTooLarge) Error() string {
	return fmt.Sprintf("a JSON value is larger than %d bytes", e.limit)
}

func (c *countReader) Read(p []byte) (int, error) {
	if c.n-c.mark > c.limit+readChunk {
		return 0, &errTooLarge{c.limit}
	}
	if len(p) > readChunk {
		p = p[:readChunk]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	c.nl += bytes.Count(p[:n], []byte{'\n'})
	return n, err
}
