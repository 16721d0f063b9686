package web

import (
	"cmp"
	"net/url"
	"slices"
)

// sorter is a table's order, from ?sort=COLUMN&dir=asc|desc: sorting is
// done on the server, so that it works without script and a sorted table
// can be shared as a link. An unknown column or direction falls back to
// the table's default.
type sorter struct {
	Col, Dir string
	path     string
	query    url.Values
	anchor   string
	kinds    map[string]string // column → colText, colNum or colDesc
}

// Kinds of sortable column: text sorts A to Z first; a number sorts
// largest first and is right-aligned; colDesc sorts largest (latest) first
// but stays left-aligned (dates, a figure with a badge).
const (
	colText = "text"
	colNum  = "num"
	colDesc = "desc"
)

// newSorter reads the order of a table from the query of the page at path;
// cols maps its columns to their kind; anchor is the table's id, kept in the header links so
// that the page scrolls back to it.
func newSorter(path string, query url.Values, anchor, defCol, defDir string, cols map[string]string) sorter {
	s := sorter{Col: defCol, Dir: defDir, path: path, query: query, anchor: anchor, kinds: cols}
	if col := query.Get("sort"); col != "" {
		if kind, ok := cols[col]; ok {
			s.Col = col
			s.Dir = "asc"
			if kind != colText {
				s.Dir = "desc"
			}
		}
	}
	if d := query.Get("dir"); d == "asc" || d == "desc" {
		s.Dir = d
	}
	return s
}

// headCell is a sortable column header.
type headCell struct {
	Label, Href, AriaSort, Arrow string
	Numeric                      bool
}

// Head is the header of column col: a link that sorts by it, the other
// way round when it is the current order.
func (s sorter) Head(col, label string) headCell {
	h := headCell{Label: label, Numeric: s.kinds[col] == colNum}
	dir := "asc"
	if s.kinds[col] != colText {
		dir = "desc"
	}
	if col == s.Col {
		if s.Dir == "asc" {
			h.AriaSort, h.Arrow, dir = "ascending", " ▲", "desc"
		} else {
			h.AriaSort, h.Arrow, dir = "descending", " ▼", "asc"
		}
	}
	q := url.Values{}
	for k, v := range s.query {
		q[k] = v
	}
	q.Set("sort", col)
	q.Set("dir", dir)
	h.Href = s.path + "?" + q.Encode()
	if s.anchor != "" {
		h.Href += "#" + s.anchor
	}
	return h
}

// sortRows orders rows by the sorter's column with keys[col]; ties keep
// their order (rows come sorted by name).
func sortRows[T any](rows []T, s sorter, keys map[string]func(a, b T) int) {
	by, ok := keys[s.Col]
	if !ok {
		return
	}
	slices.SortStableFunc(rows, func(a, b T) int {
		if s.Dir == "desc" {
			return by(b, a)
		}
		return by(a, b)
	})
}

// byField builds a comparison from a key function.
func byField[T any, K cmp.Ordered](key func(T) K) func(a, b T) int {
	return func(a, b T) int { return cmp.Compare(key(a), key(b)) }
}
