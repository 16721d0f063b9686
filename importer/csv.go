package importer

// Format csv: our own usage records (usage/record.go, token meanings of
// MISSION.md, nothing converted) as RFC 4180 CSV with a header row. The
// columns are usage.Record's JSON names: id, occurred_at (RFC 3339),
// workload, model, input_tokens, cached_input_tokens, output_tokens,
// requests, latency_ms, ttft_ms, prompt, bloat_tokens; id, occurred_at,
// model and input_tokens must be there. Tags are columns "tag.NAME", one a
// tag, rather than one column of JSON: a spreadsheet can fill and filter
// them. An empty cell means absent: no tag, no latency, a zero count, one
// request. The header is checked whole before any row: an unknown or
// repeated column fails the file, naming it. Options.Workload may be
// "workload" (the default), "model" or "tag:NAME".
//
// A row is held in memory whole; encoding/csv offers no bound on a quoted
// field, so a CSV file is trusted not to hold a gigabyte in one cell.

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/flopledger/flopledger/usage"
)

// csvColumns are the columns besides "tag.NAME"; csvRequired must be there.
var (
	csvColumns  = []string{"id", "occurred_at", "workload", "model", "input_tokens", "cached_input_tokens", "output_tokens", "requests", "latency_ms", "ttft_ms", "prompt", "bloat_tokens"}
	csvRequired = []string{"id", "occurred_at", "model", "input_tokens"}
)

func readCSV(r io.Reader, e *emitter) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1 // a short or long row is a bad item, reported by us
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("header: %w", err)
	}
	cols, err := csvHeader(header)
	if err != nil {
		return err
	}
	for row := 1; ; row++ {
		cells, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var pe *csv.ParseError
		switch {
		case errors.As(err, &pe):
			err = e.failf(fmt.Sprintf("row %d (line %d)", row, pe.StartLine), "not valid CSV: %v", pe.Err)
		case err != nil:
			return err
		default:
			line, _ := cr.FieldPos(0)
			err = e.csvRow(fmt.Sprintf("row %d (line %d)", row, line), cols, cells)
		}
		if err != nil {
			return err
		}
	}
}

// csvHeader checks the header and returns the column names.
func csvHeader(header []string) ([]string, error) {
	cols := slices.Clone(header)
	seen := map[string]bool{}
	for i, c := range cols {
		if i == 0 {
			c = strings.TrimPrefix(c, "\ufeff") // Excel's byte order mark
		}
		c = strings.TrimSpace(c)
		cols[i] = c
		tag, isTag := strings.CutPrefix(c, "tag.")
		switch {
		case isTag && tag == "":
			return nil, fmt.Errorf("header: column %d is %q, with no tag name after \"tag.\"", i+1, c)
		case !isTag && !slices.Contains(csvColumns, c):
			return nil, fmt.Errorf("header: unknown column %q (column %d); the columns are %s, and tag.NAME for each tag", c, i+1, strings.Join(csvColumns, ", "))
		case seen[c]:
			return nil, fmt.Errorf("header: column %q appears twice", c)
		}
		seen[c] = true
	}
	for _, c := range csvRequired {
		if !seen[c] {
			return nil, fmt.Errorf("header: column %q is missing; %s are required", c, strings.Join(csvRequired, ", "))
		}
	}
	return cols, nil
}

// csvRow turns one row into a record and reports it; the first bad cell
// makes the row a bad item naming its column.
func (e *emitter) csvRow(pos string, cols, cells []string) error {
	if len(cells) != len(cols) {
		return e.failf(pos, "has %d cells; the header has %d columns", len(cells), len(cols))
	}
	var r usage.Record
	for i, col := range cols {
		v := cells[i]
		if v == "" {
			continue
		}
		if err := setCSVCell(&r, col, v); err != nil {
			return e.failf(pos, "column %s: %v", col, err)
		}
	}
	return e.ownFinish(pos, r)
}

func setCSVCell(r *usage.Record, col, v string) error {
	if tag, ok := strings.CutPrefix(col, "tag."); ok {
		if r.Tags == nil {
			r.Tags = map[string]string{}
		}
		r.Tags[tag] = v
		return nil
	}
	switch col {
	case "id":
		r.ID = v
	case "workload":
		r.Workload = v
	case "model":
		r.Model = v
	case "prompt":
		r.Prompt = &v
	case "occurred_at":
		t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("%q is not an RFC 3339 time (e.g. 2026-10-01T12:00:00Z)", v)
		}
		r.OccurredAt = t
	default:
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not an integer", v)
		}
		switch col {
		case "input_tokens":
			r.InputTokens = n
		case "cached_input_tokens":
			r.CachedInputTokens = n
		case "output_tokens":
			r.OutputTokens = n
		case "requests":
			r.Requests = n
		case "latency_ms":
			r.LatencyMS = &n
		case "ttft_ms":
			r.TTFTMS = &n
		case "bloat_tokens":
			r.BloatTokens = &n
		}
	}
	return nil
}
