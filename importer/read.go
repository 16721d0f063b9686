// Package importer reads the usage files that users already have — our own
// NDJSON and CSV records, the OpenAI and Anthropic organization usage
// reports, OpenTelemetry GenAI spans and LiteLLM spend logs — into
// usage.Records.
//
// Every import converts tokens to MISSION.md's one meaning: input_tokens
// counts every prompt token, cached or not, and cached_input_tokens is the
// part of them served from a prefix cache. Each format's file says which
// source fields map to which record fields and which documentation that
// mapping follows.
//
// Read streams: it holds one NDJSON line, one CSV row or one JSON value (a
// page, a row, an OTLP document) in memory at a time, each at most
// MaxValueBytes. A bad item is reported as an Item with Err and the import
// goes on; Read itself fails only when the file cannot be read further.
package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/flopledger/flopledger/usage"
)

// Format names a kind of usage file.
type Format string

// The formats Read understands.
const (
	NDJSON    Format = "ndjson"
	CSV       Format = "csv"
	OpenAI    Format = "openai"
	Anthropic Format = "anthropic"
	OTLP      Format = "otlp"
	LiteLLM   Format = "litellm"
)

// Formats lists every format, in the order help texts show them.
var Formats = []Format{NDJSON, CSV, OpenAI, Anthropic, OTLP, LiteLLM}

// ParseFormat turns a user's format name into a Format; the error names
// the valid ones.
func ParseFormat(s string) (Format, error) {
	f := Format(strings.ToLower(strings.TrimSpace(s)))
	if slices.Contains(Formats, f) {
		return f, nil
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown format %q: the formats are %s", s, strings.Join(names, ", "))
}

// DefaultWorkload is the workload of a record whose workload field is
// absent or empty, unless Options.DefaultWorkload says otherwise.
const DefaultWorkload = "unassigned"

// Options says how to label the records of a file.
type Options struct {
	// Workload names the source field that gives a record its workload, or
	// "tag:NAME" for the record's tag NAME (after Tags are applied). Empty
	// means the format's default: workload (ndjson, csv), project_id
	// (openai), workspace_id (anthropic), service.name (otlp), team_id
	// (litellm). Each format's file lists the field names it knows.
	Workload string
	// DefaultWorkload is used when that field is absent or empty; empty
	// means DefaultWorkload ("unassigned").
	DefaultWorkload string
	// Tags names the source fields copied into each record's tags, keyed by
	// the field's name; a field that is absent or empty adds no tag. Nil
	// means the format's defaults (see each format's file); an empty,
	// non-nil slice means no tags. ndjson and csv records carry their own
	// tags and take none.
	Tags []string
	// TokensPerRequest is the mean number of prompt tokens per request. The
	// Anthropic usage report counts tokens but not requests, and a bucket's
	// FLOPs depend on how its tokens split into requests (attention grows
	// with prompt length), so that format requires it. Other formats
	// ignore it.
	TokensPerRequest int64
}

// ErrTokensPerRequest is returned, wrapped, when a format needs
// Options.TokensPerRequest and it is not set.
var ErrTokensPerRequest = errors.New("this format needs Options.TokensPerRequest (--input-tokens-per-request)")

// Item is one record, bad item or skipped item of a file, in file order.
// Exactly one of these holds: Err != nil; Skipped != ""; Record is a valid
// record.
type Item struct {
	Pos     string       // where it is in the file: "line 12", "page 1 bucket 3 result 2", …
	Index   int          // 0-based ordinal of the item in the file
	Record  usage.Record // valid only when Err == nil and Skipped == ""
	Err     error        // the item is bad; an *ItemError naming Pos, the field and the reason
	Skipped string       // why the item carries no usage to import, e.g. a span without token counts
}

// ItemError is the error of one bad item. The import goes on after it.
type ItemError struct {
	Pos string
	Err error
}

func (e *ItemError) Error() string { return e.Pos + ": " + e.Err.Error() }
func (e *ItemError) Unwrap() error { return e.Err }

// Read streams the items of r, a file in format f, and calls yield for each
// one in file order. It returns yield's error as soon as yield returns one.
// Otherwise it returns an error only when the file cannot be read further
// (it is not JSON at all, a CSV header names an unknown column, the options
// do not fit the format), after yielding every item it could.
func Read(r io.Reader, f Format, o Options, yield func(Item) error) error {
	f, err := ParseFormat(string(f))
	if err != nil {
		return err
	}
	spec := specs[f]
	o, err = spec.resolve(f, o)
	if err != nil {
		return fmt.Errorf("%s: %w", f, err)
	}
	e := &emitter{format: f, o: o, yield: yield}
	if err := spec.read(r, e); err != nil {
		if errors.Is(err, errStop) {
			return e.stopped
		}
		return fmt.Errorf("%s: %w", f, err)
	}
	return nil
}

// spec is what Read needs to know about a format.
type spec struct {
	read     func(io.Reader, *emitter) error
	workload string   // default Options.Workload
	tags     []string // default Options.Tags
	// fields are the source field names Workload and Tags may name; nil
	// means any name (OTLP attributes). prefix, if set, admits any field
	// under it (LiteLLM's "metadata.").
	fields []string
	prefix string
	noTags bool // records carry their own tags (ndjson, csv)
}

var specs = map[Format]spec{
	NDJSON:    {read: readNDJSON, workload: "workload", fields: ownFields, noTags: true},
	CSV:       {read: readCSV, workload: "workload", fields: ownFields, noTags: true},
	OpenAI:    {read: readOpenAI, workload: "project_id", tags: openaiTags, fields: openaiFields},
	Anthropic: {read: readAnthropic, workload: "workspace_id", tags: anthropicTags, fields: anthropicFields},
	OTLP:      {read: readOTLP, workload: "service.name", tags: otlpTags},
	LiteLLM:   {read: readLiteLLM, workload: "team_id", tags: litellmTags, fields: litellmFields, prefix: "metadata."},
}

// ownFields are the fields of our own records that may name a workload.
var ownFields = []string{"workload", "model"}

// resolve fills o's defaults and checks that its field names fit the
// format, so that a typo fails the file up front instead of labelling every
// record "unassigned".
func (s spec) resolve(f Format, o Options) (Options, error) {
	if o.Workload == "" {
		o.Workload = s.workload
	}
	if o.DefaultWorkload == "" {
		o.DefaultWorkload = DefaultWorkload
	}
	if s.noTags && len(o.Tags) > 0 {
		return o, fmt.Errorf("Options.Tags: %s records carry their own tags; copy a tag into the workload with Workload \"tag:NAME\"", f)
	}
	if o.Tags == nil {
		o.Tags = s.tags
	}
	if name, ok := strings.CutPrefix(o.Workload, "tag:"); ok {
		if name == "" {
			return o, errors.New(`Options.Workload: "tag:" needs a tag name, e.g. "tag:team"`)
		}
	} else if !s.known(o.Workload) {
		return o, fmt.Errorf("Options.Workload: %q is not a field of %s; %s", o.Workload, f, s.fieldList())
	}
	for _, t := range o.Tags {
		if !s.known(t) {
			return o, fmt.Errorf("Options.Tags: %q is not a field of %s; %s", t, f, s.fieldList())
		}
	}
	if o.TokensPerRequest < 0 {
		return o, fmt.Errorf("Options.TokensPerRequest is %d; it must be positive", o.TokensPerRequest)
	}
	if f == Anthropic && o.TokensPerRequest == 0 {
		return o, fmt.Errorf("%w: the Anthropic usage report counts tokens but not requests, and a bucket's FLOPs depend on how its prompt tokens split into requests; give the mean prompt tokens per request", ErrTokensPerRequest)
	}
	return o, nil
}

func (s spec) known(name string) bool {
	if s.fields == nil {
		return name != ""
	}
	return slices.Contains(s.fields, name) || (s.prefix != "" && strings.HasPrefix(name, s.prefix) && len(name) > len(s.prefix))
}

func (s spec) fieldList() string {
	if s.prefix != "" {
		return fmt.Sprintf("the fields are %s, any %sNAME, or tag:NAME", strings.Join(s.fields, ", "), s.prefix)
	}
	return fmt.Sprintf("the fields are %s, or tag:NAME", strings.Join(s.fields, ", "))
}

// errStop unwinds a format's reader when yield returned an error; Read
// returns that error itself.
var errStop = errors.New("stopped by yield")

// emitter numbers items, finishes records and hands items to yield.
type emitter struct {
	format  Format
	o       Options
	yield   func(Item) error
	n       int
	stopped error
}

func (e *emitter) emit(it Item) error {
	it.Index = e.n
	e.n++
	if err := e.yield(it); err != nil {
		e.stopped = err
		return errStop
	}
	return nil
}

// fail reports a bad item.
func (e *emitter) fail(pos string, err error) error {
	return e.emit(Item{Pos: pos, Err: &ItemError{Pos: pos, Err: err}})
}

func (e *emitter) failf(pos, format string, a ...any) error {
	return e.fail(pos, fmt.Errorf(format, a...))
}

// skip reports an item that carries no usage to import.
func (e *emitter) skip(pos, why string) error {
	return e.emit(Item{Pos: pos, Skipped: why})
}

// record labels r from the source fields that get returns, normalizes and
// validates it, and reports it.
func (e *emitter) record(pos string, r usage.Record, get func(field string) string) error {
	if get != nil {
		e.label(&r, get)
	}
	r = r.Normalized()
	if err := r.Validate(); err != nil {
		return e.fail(pos, err)
	}
	return e.emit(Item{Pos: pos, Record: r})
}

// label sets r's tags and workload from the options. A tag or workload
// field that is absent or empty adds nothing.
func (e *emitter) label(r *usage.Record, get func(string) string) {
	for _, name := range e.o.Tags {
		if v := get(name); v != "" {
			if r.Tags == nil {
				r.Tags = map[string]string{}
			}
			r.Tags[name] = v
		}
	}
	if name, ok := strings.CutPrefix(e.o.Workload, "tag:"); ok {
		r.Workload = r.Tags[name]
	} else {
		r.Workload = get(e.o.Workload)
	}
	if r.Workload == "" {
		r.Workload = e.o.DefaultWorkload
	}
}

// bucketID is the deterministic id of a bucket-format record: the format
// and the bucket's identifying fields, hashed, so that importing the same
// report twice gives the same ids and the ingest layer keeps one copy. The
// fields are "name=value" strings; JSON-encoding the list keeps two
// different lists from ever hashing the same bytes.
func bucketID(f Format, fields ...string) string {
	b, _ := json.Marshal(append([]string{string(f)}, fields...)) // a []string always marshals
	sum := sha256.Sum256(b)
	return string(f) + ":" + hex.EncodeToString(sum[:])
}

// addTokens adds token counts, reporting false when the sum leaves int64:
// the counts come from files and a hostile one could wrap a sum negative.
func addTokens(vs ...int64) (int64, bool) {
	var sum int64
	for _, v := range vs {
		if v < 0 {
			return 0, false
		}
		if sum > (1<<63-1)-v {
			return 0, false
		}
		sum += v
	}
	return sum, true
}
