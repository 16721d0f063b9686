package importer

import (
	"strings"
	"testing"
)

// value is what jsonValues passed on: the raw text or the error, and where.
type value struct{ pos, raw, err string }

func collect(t *testing.T, input string, limit int) ([]value, error) {
	t.Helper()
	var vs []value
	err := jsonValues(strings.NewReader(input), "page", limit, func(raw []byte, pos string, err error) error {
		v := value{pos: pos, raw: string(raw)}
		if err != nil {
			v.err = err.Error()
		}
		vs = append(vs, v)
		return nil
	})
	return vs, err
}

func TestJSONValues(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		input   string
		limit   int
		want    []value
		fileErr string // part of the file-level error, if any
	}{
		{name: "empty file", input: " \n\n"},
		{name: "NDJSON with blank lines and CRLF", input: "\n{\"a\":1}\r\n\r\n{\"b\":2}\n",
			want: []value{{pos: "line 2", raw: `{"a":1}`}, {pos: "line 4", raw: `{"b":2}`}}},
		{name: "NDJSON whose first line is bad", input: "{\"a\":}\n{\"b\":2}\n",
			want: []value{{pos: "line 1", raw: `{"a":}`}, {pos: "line 2", raw: `{"b":2}`}}},
		{name: "pretty-printed document", input: "{\n  \"a\": {\"x\": 1}\n}\n",
			want: []value{{pos: "page 1", raw: "{\n  \"a\": {\"x\": 1}\n}"}}},
		{name: "document whose first line ends in a brace", input: "{\"a\": {\"x\": 1}\n}\n",
			want: []value{{pos: "page 1", raw: "{\"a\": {\"x\": 1}\n}"}}},
		{name: "array streamed element by element", input: "\ufeff[\n {\"a\":1},\n {\"b\":2}\n]\n",
			want: []value{{pos: "page 1", raw: `{"a":1}`}, {pos: "page 2", raw: `{"b":2}`}}},
		{name: "arrays one after another", input: "[{\"a\":1}]\n[{\"b\":2},{\"c\":3}]\n",
			want: []value{{pos: "page 1", raw: `{"a":1}`}, {pos: "page 2", raw: `{"b":2}`}, {pos: "page 3", raw: `{"c":3}`}}},
		{name: "invalid JSON in a document names its line", input: "[\n {\"a\":1},\n {\"b\":2,,}\n]\n",
			want: []value{{pos: "page 1", raw: `{"a":1}`}}, fileErr: "(line 3)"},
		{name: "not JSON at all", input: "hello, world\n", fileErr: "not valid JSON at byte offset 0 (line 1)"},
		{name: "a cut-off document", input: "[{\"a\":1}, {\"b\":", want: []value{{pos: "page 1", raw: `{"a":1}`}}, fileErr: "ends early"},
		{name: "an NDJSON line over the limit is a bad item", limit: 10, input: "{\"a\":1}\n{\"b\":\"0123456789\"}\n{\"c\":3}\n",
			want: []value{{pos: "line 1", raw: `{"a":1}`}, {pos: "line 2", err: "longer than"}, {pos: "line 3", raw: `{"c":3}`}}},
		{name: "a document value over the limit stops the file", limit: 10, input: "[{\"a\":1}, {\"b\":\"" + strings.Repeat("x", 3*readChunk) + "\"}]",
			want: []value{{pos: "page 1", raw: `{"a":1}`}}, fileErr: "larger than 10 bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			limit := c.limit
			if limit == 0 {
				limit = MaxValueBytes
			}
			got, err := collect(t, c.input, limit)
			switch {
			case c.fileErr == "" && err != nil:
				t.Errorf("file error %v", err)
			case c.fileErr != "" && (err == nil || !strings.Contains(err.Error(), c.fileErr)):
				t.Errorf("file error %v, want one containing %q", err, c.fileErr)
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
			for i, w := range c.want {
				g := got[i]
				if g.pos != w.pos || g.raw != w.raw || !strings.Contains(g.err, w.err) || (w.err == "") != (g.err == "") {
					t.Errorf("value %d: got %+v, want %+v", i, g, w)
				}
			}
		})
	}
}
