package web

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/flopledger/flopledger/estimator"
	"github.com/flopledger/flopledger/usage"
)

// Default ingest limits, when Options leave them at 0.
const (
	DefaultMaxBatchRecords = 10_000
	DefaultMaxBatchBytes   = 32 << 20
)

// ingestUsage takes a JSON array, NDJSON or a CloudEvents batch of usage
// records. Valid records are stored even when others are rejected, unless
// ?atomic=true. The answer counts accepted and duplicate records and names
// each rejected one by index, id and field.
func (s *Server) ingestUsage(c *gin.Context) {
	atomic, err := boolParam(c, "atomic")
	if err != nil {
		s.fail(c, err)
		return
	}
	body, err := s.readBody(c, s.maxBatchBytes)
	if err != nil {
		s.fail(c, err)
		return
	}
	mt, _, _ := mime.ParseMediaType(c.GetHeader("Content-Type"))
	var items []usage.Item
	switch mt {
	case "application/x-ndjson", "application/jsonl", "application/ndjson":
		items, err = decodeNDJSON(body)
	case "application/cloudevents-batch+json":
		items, err = decodeCloudEvents(body)
	case "", "application/json":
		items, err = decodeArray(body)
	default:
		err = &Error{Status: http.StatusUnsupportedMediaType, Code: "unsupported_media_type",
			Message: fmt.Sprintf("Content-Type %q is not accepted; send application/json (an array), application/x-ndjson or application/cloudevents-batch+json", mt)}
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	if len(items) > s.maxBatchRecords {
		s.fail(c, &Error{Status: http.StatusRequestEntityTooLarge, Code: "batch_too_large",
			Message: fmt.Sprintf("the batch has %d records; the limit is %d per request (FLOPLEDGER_MAX_BATCH_RECORDS)", len(items), s.maxBatchRecords)})
		return
	}
	res, err := s.usage.Ingest(c.Request.Context(), items, atomic)
	if err != nil {
		s.fail(c, err)
		return
	}
	if atomic && len(res.Rejected) > 0 {
		s.fail(c, &Error{Status: http.StatusUnprocessableEntity, Code: "batch_rejected",
			Message: fmt.Sprintf("atomic batch: %d problem(s) in the records; nothing was stored", len(res.Rejected)), Details: res.Rejected})
		return
	}
	c.JSON(http.StatusOK, res)
}

func (s *Server) unpricedUsage(c *gin.Context) {
	list, err := s.usage.Unpriced(c.Request.Context())
	if err != nil {
		s.fail(c, err)
		return
	}
	if list == nil {
		list = []usage.Unpriced{}
	}
	c.JSON(http.StatusOK, gin.H{"unpriced": list})
}

func boolParam(c *gin.Context, name string) (bool, error) {
	v := c.Query(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, &Error{Status: http.StatusBadRequest, Code: "invalid_parameter", Message: fmt.Sprintf("?%s=%q: want true or false", name, v)}
	}
	return b, nil
}

// decodeArray reads a JSON array of records (or one record object). A body
// that is not JSON fails whole; an element that is not a valid record is
// that element's rejection.
func decodeArray(body []byte) ([]usage.Item, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		trimmed = append(append([]byte{'['}, trimmed...), ']')
	}
	var raw []json.RawMessage
	if err := decodeStrict(trimmed, &raw); err != nil {
		return nil, err
	}
	items := make([]usage.Item, len(raw))
	for i, r := range raw {
		items[i] = decodeRecord(r)
	}
	return items, nil
}

// decodeNDJSON reads one record per line. Blank lines are skipped and not
// counted: an index is the record's 0-based position among the non-blank
// lines, as in a JSON array.
func decodeNDJSON(body []byte) ([]usage.Item, error) {
	var items []usage.Item
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 64<<10), len(body)+1)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			items = append(items, decodeRecord(line))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &Error{Status: http.StatusBadRequest, Code: "invalid_ndjson", Message: err.Error()}
	}
	return items, nil
}

// decodeRecord decodes one record strictly; its error names the field.
// Invalid UTF-8 is refused before decoding: encoding/json would replace it
// with U+FFFD, so two different broken ids could become one and a record
// be dropped as a duplicate.
func decodeRecord(raw []byte) usage.Item {
	if !utf8.Valid(raw) {
		return usage.Item{Err: estimator.ValidationError{Problems: []estimator.Problem{{Message: "the record is not valid UTF-8"}}}}
	}
	if r, ok := decodeRecordFast(raw); ok {
		return usage.Item{Record: r}
	}
	var r usage.Record
	if err := decodeStrict(raw, &r); err != nil {
		// Keep the id for the rejection when the rest is bad.
		var probe struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(raw, &probe)
		return usage.Item{Record: usage.Record{ID: probe.ID}, Err: itemError(err)}
	}
	return usage.Item{Record: r}
}

// itemError turns a decoding *Error into a validation problem of the item.
func itemError(err error) error {
	var e *Error
	if errors.As(err, &e) {
		if ps, ok := e.Details.([]estimator.Problem); ok {
			return estimator.ValidationError{Problems: ps}
		}
		return errors.New(strings.Replace(e.Message, "the body ", "the record ", 1))
	}
	return err
}

// cloudEvent is the part of a CloudEvents 1.0 event we read.
type cloudEvent struct {
	SpecVersion string          `json:"specversion"`
	ID          string          `json:"id"`
	Source      string          `json:"source"`
	Type        string          `json:"type"`
	Time        string          `json:"time"`
	Data        json.RawMessage `json:"data"`
}

// decodeCloudEvents reads a CloudEvents batch (JSON format): our record in
// data, and source + " " + id as its idempotency key, as CloudEvents
// defines (source, id) to identify an event.
func decodeCloudEvents(body []byte) ([]usage.Item, error) {
	var raw []json.RawMessage
	if err := decodeStrict(body, &raw); err != nil {
		return nil, err
	}
	items := make([]usage.Item, len(raw))
	for i, r := range raw {
		var ev cloudEvent
		if err := json.Unmarshal(r, &ev); err != nil {
			items[i] = usage.Item{Err: fmt.Errorf("not a CloudEvent: %v", err)}
			continue
		}
		var missing []string
		for _, f := range [][2]string{{"specversion", ev.SpecVersion}, {"id", ev.ID}, {"source", ev.Source}, {"type", ev.Type}} {
			if f[1] == "" {
				missing = append(missing, f[0])
			}
		}
		if len(ev.Data) == 0 || string(ev.Data) == "null" {
			missing = append(missing, "data")
		}
		if len(missing) > 0 {
			items[i] = usage.Item{Err: estimator.ValidationError{Problems: []estimator.Problem{{Field: missing[0], Message: "CloudEvent lacks " + strings.Join(missing, ", ")}}}}
			continue
		}
		it := decodeRecord(ev.Data)
		it.Record.ID = ev.Source + " " + ev.ID
		items[i] = it
	}
	return items, nil
}
