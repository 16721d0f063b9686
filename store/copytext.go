package store

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/flopledger/flopledger/usage"
)

// copyText writes rows in COPY's text format, in copyRecords' column
// order, and adds each to sums on the way. Text fields are escaped as
// COPY requires (backslash, tab, newline, carriage return); \\N is NULL.
func copyText(rows []usage.Row, sums *rollup) ([]byte, error) {
	buf := make([]byte, 0, 256*len(rows))
	for _, row := range rows {
		r := row.Record
		tags, err := tagsJSON(r.Tags)
		if err != nil {
			return nil, err
		}
		rollTags := tags
		if len(row.RollupTags) != len(r.Tags) { // else they are the same tags
			if rollTags, err = tagsJSON(row.RollupTags); err != nil {
				return nil, err
			}
		}
		sums.addDaily(row, rollTags)
		sums.addHistograms(row, rollTags)

		buf = appendCopyString(buf, r.ID)
		buf = append(buf, '\t')
		buf = r.OccurredAt.UTC().AppendFormat(buf, time.RFC3339Nano)
		buf = append(buf, '\t')
		buf = appendCopyString(buf, r.Workload)
		buf = append(buf, '\t')
		buf = appendCopyString(buf, r.Model)
		for _, v := range []int64{r.InputTokens, r.CachedInputTokens, r.OutputTokens, r.Requests} {
			buf = append(buf, '\t')
			buf = strconv.AppendInt(buf, v, 10)
		}
		for _, v := range []*int64{r.LatencyMS, r.TTFTMS} {
			buf = append(buf, '\t')
			buf = appendCopyInt(buf, v)
		}
		buf = append(buf, '\t')
		buf = appendCopyString(buf, tags)
		buf = append(buf, '\t')
		buf = appendCopyInt(buf, r.BloatTokens)
		if row.PrefillFLOPs != nil {
			buf = append(buf, '\t')
			buf = row.PrefillFLOPs.Append(buf, 10)
			buf = append(buf, '\t')
			buf = row.DecodeFLOPs.Append(buf, 10)
			buf = append(buf, '\t')
			buf = strconv.AppendInt(buf, int64(row.ModelVersion), 10)
		} else {
			buf = append(buf, "\t\\N\t\\N\t\\N"...)
		}
		buf = append(buf, '\n')
	}
	return buf, nil
}

// tagsJSON is tags as encoding/json writes them, "{}" for none. The JSON
// is also the key of the rollups, so it must have one spelling: the fast
// path for the usual single tag is taken only where encoding/json would
// write the same bytes.
func tagsJSON(tags map[string]string) (string, error) {
	if len(tags) == 0 {
		return "{}", nil
	}
	if len(tags) == 1 { // the usual case, without encoding/json's reflection
		for k, v := range tags {
			if plainJSON(k) && plainJSON(v) {
				return `{"` + k + `":"` + v + `"}`, nil
			}
		}
	}
	b, err := json.Marshal(tags)
	return string(b), err
}

// plainJSON reports whether encoding/json writes s between quotes as it
// is: printable ASCII without a quote, a backslash or the <, > and & it escapes.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

func appendCopyInt(buf []byte, v *int64) []byte {
	if v == nil {
		return append(buf, `\N`...)
	}
	return strconv.AppendInt(buf, *v, 10)
}

// appendCopyString escapes s for COPY's text format.
func appendCopyString(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			buf = append(buf, `\\`...)
		case '\t':
			buf = append(buf, `\t`...)
		case '\n':
			buf = append(buf, `\n`...)
		case '\r':
			buf = append(buf, `\r`...)
		default:
			buf = append(buf, c)
		}
	}
	return buf
}
