package importer

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/flopledger/flopledger/usage"
)

// want is one expected item: a record, or an error or a skip whose message
// contains the given text.
type want struct {
	pos  string
	rec  *usage.Record
	err  string
	skip string
}

func ok(pos string, r usage.Record) want { return want{pos: pos, rec: &r} }
func bad(pos, msg string) want           { return want{pos: pos, err: msg} }
func skipped(pos, why string) want       { return want{pos: pos, skip: why} }

func i64(v int64) *int64 { return &v }

func day(d int) time.Time { return time.Date(2025, 10, d, 0, 0, 0, 0, time.UTC) }

// readItems reads a file of testdata, or text when file is empty.
func readItems(t *testing.T, f Format, file, text string, o Options) ([]Item, error) {
	t.Helper()
	data := []byte(text)
	if file != "" {
		var err error
		if data, err = os.ReadFile(filepath.Join("testdata", file)); err != nil {
			t.Fatal(err)
		}
	}
	var items []Item
	err := Read(bytes.NewReader(data), f, o, func(it Item) error {
		items = append(items, it)
		return nil
	})
	return items, err
}

// check compares items with wants, and asserts the item invariants.
func check(t *testing.T, items []Item, wants []want) {
	t.Helper()
	for i, it := range items {
		checkInvariants(t, i, it)
	}
	if len(items) != len(wants) {
		for _, it := range items {
			t.Logf("got %s: rec=%+v err=%v skip=%q", it.Pos, it.Record, it.Err, it.Skipped)
		}
		t.Fatalf("got %d items, want %d", len(items), len(wants))
	}
	for i, w := range wants {
		it := items[i]
		if it.Pos != w.pos {
			t.Errorf("item %d: pos %q, want %q", i, it.Pos, w.pos)
		}
		switch {
		case w.err != "":
			if it.Err == nil || !strings.Contains(it.Err.Error(), w.err) {
				t.Errorf("item %d (%s): err %v, want one containing %q", i, w.pos, it.Err, w.err)
			} else if !strings.HasPrefix(it.Err.Error(), it.Pos+": ") {
				t.Errorf("item %d: err %q does not start with its position", i, it.Err)
			}
		case w.skip != "":
			if !strings.Contains(it.Skipped, w.skip) {
				t.Errorf("item %d (%s): skipped %q, want one containing %q (err %v)", i, w.pos, it.Skipped, w.skip, it.Err)
			}
		default:
			if it.Err != nil || it.Skipped != "" {
				t.Errorf("item %d (%s): err %v, skipped %q; want a record", i, w.pos, it.Err, it.Skipped)
				continue
			}
			if !sameRecord(it.Record, *w.rec) {
				t.Errorf("item %d (%s):\n got %+v\nwant %+v", i, w.pos, it.Record, *w.rec)
			}
		}
	}
}

func checkInvariants(t *testing.T, i int, it Item) {
	t.Helper()
	if it.Index != i {
		t.Errorf("item %d has Index %d", i, it.Index)
	}
	kinds := 0
	if it.Err != nil {
		kinds++
	}
	if it.Skipped != "" {
		kinds++
	}
	if kinds == 0 {
		if err := it.Record.Validate(); err != nil {
			t.Errorf("item %d (%s): record does not validate: %v", i, it.Pos, err)
		}
	}
	if kinds > 1 {
		t.Errorf("item %d (%s) is both bad and skipped", i, it.Pos)
	}
	if it.Pos == "" {
		t.Errorf("item %d has no position", i)
	}
}

func sameRecord(a, b usage.Record) bool {
	if !a.OccurredAt.Equal(b.OccurredAt) {
		return false
	}
	a.OccurredAt, b.OccurredAt = time.Time{}, time.Time{}
	return reflect.DeepEqual(a, b)
}

// testFormat runs named cases of one format. Every case reads its input
// twice and requires the same items, ids included: importing a file again
// must give the same ids for the ingest layer to deduplicate.
type formatCase struct {
	name  string
	file  string // in testdata
	text  string // or inline input
	opts  Options
	wants []want
}

func testFormat(t *testing.T, f Format, cases []formatCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			items, err := readItems(t, f, c.file, c.text, c.opts)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			check(t, items, c.wants)
			again, err := readItems(t, f, c.file, c.text, c.opts)
			if err != nil {
				t.Fatalf("second Read: %v", err)
			}
			if !reflect.DeepEqual(items, again) {
				t.Errorf("a second read gives different items")
			}
		})
	}
}

func TestReadNDJSON(t *testing.T) {
	t.Parallel()
	testFormat(t, NDJSON, []formatCase{
		{name: "records", file: "ndjson_records.ndjson", wants: []want{
			ok("line 1", usage.Record{ID: "req-0001", OccurredAt: time.Date(2025, 10, 1, 12, 0, 0, 0, time.UTC), Workload: "support-chat",
				Model: "llama-3.1-8b", InputTokens: 1200, CachedInputTokens: 1000, OutputTokens: 300, Requests: 1,
				LatencyMS: i64(850), TTFTMS: i64(120), Tags: map[string]string{"team": "support", "env": "prod"}}),
			ok("line 3", usage.Record{ID: "req-0002", OccurredAt: time.Date(2025, 10, 1, 10, 0, 1, 5e8, time.UTC), Workload: "code-review",
				Model: "qwen2-72b", InputTokens: 95000, OutputTokens: 400, Requests: 1, BloatTokens: i64(1200)}),
			ok("line 4", usage.Record{ID: "bucket-2025-10-01", OccurredAt: day(1), Workload: "batch-summaries", Model: "mixtral-8x7b",
				InputTokens: 4_000_000, OutputTokens: 250_000, Requests: 2000}),
		}},
		{name: "malformed lines are bad items and the rest imports", file: "ndjson_malformed.ndjson", wants: []want{
			ok("line 1", usage.Record{ID: "ok-1", OccurredAt: time.Date(2025, 10, 1, 12, 0, 0, 0, time.UTC), Workload: "w", Model: "m",
				InputTokens: 10, OutputTokens: 1, Requests: 1}),
			bad("line 2", `unknown field "cached_tokens"`),
			bad("line 3", "input_tokens: want an integer, got JSON string"),
			bad("line 4", `occurred_at: "yesterday" is not an RFC 3339 time`),
			bad("line 5", "cached_input_tokens: (20) must not exceed input_tokens (10)"),
			bad("line 6", "not valid JSON"),
			bad("line 7", "want a JSON object"),
			ok("line 8", usage.Record{ID: "ok-2", OccurredAt: time.Date(2025, 10, 1, 12, 0, 0, 0, time.UTC), Workload: "unassigned", Model: "m",
				InputTokens: 10, Requests: 1}),
		}},
		{name: "workload from a tag", opts: Options{Workload: "tag:team", DefaultWorkload: "misc"},
			text: `{"id":"a","occurred_at":"2025-10-01T00:00:00Z","workload":"w","model":"m","input_tokens":5,"tags":{"team":"search"}}` + "\n" +
				`{"id":"b","occurred_at":"2025-10-01T00:00:00Z","workload":"w","model":"m","input_tokens":5}`,
			wants: []want{
				ok("line 1", usage.Record{ID: "a", OccurredAt: day(1), Workload: "search", Model: "m", InputTokens: 5, Requests: 1, Tags: map[string]string{"team": "search"}}),
				ok("line 2", usage.Record{ID: "b", OccurredAt: day(1), Workload: "misc", Model: "m", InputTokens: 5, Requests: 1}),
			}},
	})
}

func TestReadCSV(t *testing.T) {
	t.Parallel()
	testFormat(t, CSV, []formatCase{
		{name: "records", file: "csv_records.csv", wants: []want{
			ok("row 1 (line 2)", usage.Record{ID: "req-0001", OccurredAt: time.Date(2025, 10, 1, 12, 0, 0, 0, time.UTC), Workload: "support-chat",
				Model: "llama-3.1-8b", InputTokens: 1200, CachedInputTokens: 1000, OutputTokens: 300, Requests: 1,
				LatencyMS: i64(850), TTFTMS: i64(120), Tags: map[string]string{"team": "support", "env": "prod"}}),
			ok("row 2 (line 3)", usage.Record{ID: "req-0002", OccurredAt: time.Date(2025, 10, 1, 10, 0, 1, 5e8, time.UTC), Workload: "code-review",
				Model: "qwen2-72b", InputTokens: 95000, OutputTokens: 400, Requests: 1}),
			ok("row 3 (line 4)", usage.Record{ID: "bucket-2025-10-01", OccurredAt: day(1), Workload: "batch-summaries", Model: "mixtral-8x7b",
				InputTokens: 4_000_000, OutputTokens: 250_000, Requests: 2000, Tags: map[string]string{"team": "batch, nightly"}}),
		}},
		{name: "malformed rows are bad items and the rest imports", file: "csv_malformed.csv", wants: []want{
			ok("row 1 (line 2)", usage.Record{ID: "ok-1", OccurredAt: time.Date(2025, 10, 1, 12, 0, 0, 0, time.UTC), Workload: "w", Model: "m",
				InputTokens: 10, CachedInputTokens: 5, OutputTokens: 1, Requests: 1, Tags: map[string]string{"team": "t"}}),
			bad("row 2 (line 3)", "has 5 cells; the header has 8 columns"),
			bad("row 3 (line 4)", `column input_tokens: "10.5" is not an integer`),
			bad("row 4 (line 5)", `column occurred_at: "01/10/2025" is not an RFC 3339 time`),
			bad("row 5 (line 6)", "cached_input_tokens: (20) must not exceed input_tokens (10)"),
			bad("row 6 (line 7)", "not valid CSV"),
			ok("row 7 (line 8)", usage.Record{ID: "ok-2", OccurredAt: time.Date(2025, 10, 1, 12, 0, 0, 0, time.UTC), Workload: "unassigned", Model: "m",
				InputTokens: 10, Requests: 1}),
		}},
		{name: "byte order mark and CRLF", text: "\ufeffid,occurred_at,model,input_tokens\r\nx,2025-10-01T00:00:00Z,m,7\r\n", wants: []want{
			ok("row 1 (line 2)", usage.Record{ID: "x", OccurredAt: day(1), Workload: "unassigned", Model: "m", InputTokens: 7, Requests: 1}),
		}},
	})
}

func TestReadCSVHeaderErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, text, err string }{
		{"unknown column", "id,occurred_at,model,input_tokens,cached_tokens\n", `unknown column "cached_tokens" (column 5)`},
		{"repeated column", "id,occurred_at,model,input_tokens,model\n", `column "model" appears twice`},
		{"tag without a name", "id,occurred_at,model,input_tokens,tag.\n", `no tag name`},
		{"missing required column", "id,occurred_at,model\n", `column "input_tokens" is missing`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			items, err := readItems(t, CSV, "", c.text+"x,2025-10-01T00:00:00Z,m,1,2\n", Options{})
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "header") {
				t.Fatalf("err %v, want a header error containing %q", err, c.err)
			}
			if len(items) != 0 {
				t.Errorf("got %d items before a bad header", len(items))
			}
		})
	}
	items, err := readItems(t, CSV, "csv_unknown_column.csv", "", Options{})
	if err == nil || !strings.Contains(err.Error(), `"cached_tokens"`) || len(items) != 0 {
		t.Errorf("csv_unknown_column.csv: err %v, %d items", err, len(items))
	}
}

func TestReadOpenAI(t *testing.T) {
	t.Parallel()
	testFormat(t, OpenAI, []formatCase{
		// input_tokens already counts cached tokens in OpenAI's report:
		// 1,250,000 in, of which 900,000 cached, stays 1,250,000 in.
		{name: "one page", file: "openai_page.json", wants: []want{
			ok("page 1 bucket 1 result 1", usage.Record{ID: "openai:09b3644a2232e8dc34a5b5d02badb6f28a1312defb2be23dd13adb6bceb12e9d",
				OccurredAt: day(1), Workload: "proj_support", Model: "gpt-4o-2024-08-06", InputTokens: 1_250_000, CachedInputTokens: 900_000,
				OutputTokens: 84_000, Requests: 410, Tags: map[string]string{"project_id": "proj_support"}}),
			ok("page 1 bucket 1 result 2", usage.Record{ID: "openai:ee73b90b25f320d39f35678f380060fc5eb2b4b238001cfda8d0501d0a0dbfa5",
				OccurredAt: day(1), Workload: "proj_codeassist", Model: "gpt-4.1-mini-2025-04-14", InputTokens: 3_000_000,
				OutputTokens: 12_000, Requests: 25, Tags: map[string]string{"project_id": "proj_codeassist"}}),
			ok("page 1 bucket 2 result 1", usage.Record{ID: "openai:879e892ca3c7094fac29e8f85cb5a622f1864e9d0e677b4c4de2b0ab1a5c919e",
				OccurredAt: day(2), Workload: "proj_support", Model: "gpt-4o-2024-08-06", InputTokens: 980_000, CachedInputTokens: 700_000,
				OutputTokens: 61_000, Requests: 350, Tags: map[string]string{"project_id": "proj_support"}}),
		}},
		{name: "NDJSON of pages", file: "openai_pages.ndjson", wants: []want{
			ok("line 1 bucket 1 result 1", usage.Record{ID: "openai:e3ca78c98b1ab3c0c5bef26351c26015606285f887f081f704ab3fdf8a02078a",
				OccurredAt: day(1), Workload: "proj_support", Model: "gpt-4o-2024-08-06", InputTokens: 1_250_000, CachedInputTokens: 900_000,
				OutputTokens: 84_000, Requests: 410, Tags: map[string]string{"project_id": "proj_support", "batch": "false"}}),
			ok("line 2 bucket 1 result 1", usage.Record{ID: "openai:7a6cdeb525fd0d807afc0e4c0dd71de76c1b668bd73a4cdefe6d1c8cee0d50e5",
				OccurredAt: day(2), Workload: "proj_batchjobs", Model: "gpt-4o-mini-2024-07-18", InputTokens: 420_000, CachedInputTokens: 120_000,
				OutputTokens: 9000, Requests: 1200, Tags: map[string]string{"project_id": "proj_batchjobs", "batch": "true"}}),
		}},
		{name: "JSON array of pages, workload by model, no tags", opts: Options{Workload: "model", Tags: []string{}},
			text: `[{"object":"page","data":[{"object":"bucket","start_time":1759276800,"end_time":1759280400,"results":[{"object":"organization.usage.completions.result","input_tokens":10,"output_tokens":2,"input_cached_tokens":null,"num_model_requests":1,"model":"gpt-4o"}]}]},
			 {"object":"page","data":[{"object":"bucket","start_time":1759280400,"end_time":1759284000,"results":[{"object":"organization.usage.embeddings.result","input_tokens":10,"num_model_requests":1,"model":"text-embedding-3-small"}]}]}]`,
			wants: []want{
				ok("page 1 bucket 1 result 1", usage.Record{ID: bucketID(OpenAI, "start_time=1759276800", "end_time=1759280400", "project_id=", "user_id=",
					"api_key_id=", "model=gpt-4o", "batch=", "service_tier="), OccurredAt: day(1), Workload: "gpt-4o", Model: "gpt-4o", InputTokens: 10, OutputTokens: 2, Requests: 1}),
				skipped("page 2 bucket 1 result 1", `"organization.usage.embeddings.result" is not a completions result`),
			}},
		{name: "malformed", file: "openai_malformed.ndjson", wants: []want{
			bad("line 1 bucket 1 result 1", "input_tokens: want an integer, got JSON string"),
			ok("line 1 bucket 1 result 2", usage.Record{ID: "openai:504016241be56a96f7f13f0fe2e5660852cf965ddfb4dc6eb94d3a6cdbb92679",
				OccurredAt: day(1), Workload: "proj_a", Model: "gpt-4o", InputTokens: 100, CachedInputTokens: 50, OutputTokens: 10, Requests: 2,
				Tags: map[string]string{"project_id": "proj_a"}}),
			bad("line 1 bucket 1 result 3", "cached_input_tokens: (500) must not exceed input_tokens (100)"),
			bad("line 1 bucket 1 result 4", "model is null: export the usage with group_by=model"),
			bad("line 2", "not valid JSON"),
			skipped("line 3 bucket 1 result 1", "no usage"),
			bad("line 3 bucket 1 result 2", "same grouping fields as result 1"),
		}},
		{name: "missing request count", text: `{"object":"page","data":[{"start_time":1759276800,"end_time":1759363200,"results":[{"input_tokens":5,"output_tokens":1,"model":"gpt-4o"}]}]}`,
			wants: []want{bad("line 1 bucket 1 result 1", "num_model_requests is missing")}},
	})
}

func TestReadAnthropic(t *testing.T) {
	t.Parallel()
	o := Options{TokensPerRequest: 2000}
	testFormat(t, Anthropic, []formatCase{
		// input = uncached + cache writes (5m and 1h) + cache reads; cached = reads:
		// 150,000 + 30,000 + 20,000 + 800,000 = 1,000,000 in, 800,000 cached,
		// requests = 1,000,000 / 2,000 = 500.
		{name: "report", file: "anthropic_report.json", opts: o, wants: []want{
			ok("page 1 bucket 1 result 1", usage.Record{ID: "anthropic:a4cd50294b95dd498cabfbf2b3e2c293417c21e42a7c6c11a966b7457641f65d",
				OccurredAt: day(1), Workload: "wrkspc_01JwQvzr7rXLA5AGx3HKfFUJ", Model: "claude-sonnet-4-20250514",
				InputTokens: 1_000_000, CachedInputTokens: 800_000, OutputTokens: 45_000, Requests: 500,
				Tags: map[string]string{"workspace_id": "wrkspc_01JwQvzr7rXLA5AGx3HKfFUJ", "service_tier": "standard", "context_window": "0-200k"}}),
			ok("page 1 bucket 1 result 2", usage.Record{ID: "anthropic:6ff9a061278605725536b8bc2a89dd0cece03dc89564158e1ced3872e5bed9d2",
				OccurredAt: day(1), Workload: "wrkspc_01LegalReview0000000000", Model: "claude-opus-4-1-20250805",
				InputTokens: 2_400_000, OutputTokens: 6000, Requests: 1200,
				Tags: map[string]string{"workspace_id": "wrkspc_01LegalReview0000000000", "service_tier": "batch", "context_window": "0-200k"}}),
			// 2,999 + 1 = 3,000 tokens at 2,000 a request: 1.5 rounds up to 2.
			ok("page 1 bucket 2 result 1", usage.Record{ID: "anthropic:adf661d9bb236abb022835f7375986e3142b3889dff90d06b4caa8351578b7d1",
				OccurredAt: day(2), Workload: "unassigned", Model: "claude-3-5-haiku-20241022",
				InputTokens: 3000, OutputTokens: 900, Requests: 2,
				Tags: map[string]string{"service_tier": "priority", "context_window": "0-200k"}}),
		}},
		{name: "malformed", file: "anthropic_malformed.json", opts: o, wants: []want{
			bad("page 1 bucket 1", `starting_at "yesterday" is not an RFC 3339 time`),
			bad("page 1 bucket 2 result 1", "uncached_input_tokens is -5"),
			ok("page 1 bucket 2 result 2", usage.Record{ID: "anthropic:626434d5de6461ef73d3b953e2ad00da33fb37c51a7b8d88a31d060f4b76ad52",
				OccurredAt: day(1), Workload: "w", Model: "claude-sonnet-4-20250514", InputTokens: 400, CachedInputTokens: 300, OutputTokens: 20,
				Requests: 1, Tags: map[string]string{"workspace_id": "w", "service_tier": "standard"}}),
			bad("page 1 bucket 2 result 3", "same grouping fields as result 2"),
			skipped("page 1 bucket 2 result 4", "no usage"),
			bad("page 1 bucket 2 result 5", "model is null"),
			bad("page 2", `no "data" array`),
		}},
	})
}

func TestReadAnthropicNeedsTokensPerRequest(t *testing.T) {
	t.Parallel()
	items, err := readItems(t, Anthropic, "anthropic_report.json", "", Options{})
	if !errors.Is(err, ErrTokensPerRequest) || !strings.Contains(err.Error(), "--input-tokens-per-request") {
		t.Errorf("err %v, want ErrTokensPerRequest naming the flag", err)
	}
	if len(items) != 0 {
		t.Errorf("got %d items; the file must fail up front", len(items))
	}
}

func TestRequestsFor(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name              string
		input, per, wantN int64
	}{
		{"exact", 4000, 2000, 2},
		{"below half rounds down", 4999, 2000, 2},
		{"half rounds up", 5000, 2000, 3},
		{"no input is still one request", 0, 2000, 1},
		{"few tokens are one request", 10, 2000, 1},
		{"huge counts do not overflow", 1<<63 - 1, 2, 1 << 62},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := requestsFor(c.input, c.per); got != c.wantN {
				t.Errorf("requestsFor(%d, %d) = %d, want %d", c.input, c.per, got, c.wantN)
			}
		})
	}
}

func TestReadOTLP(t *testing.T) {
	t.Parallel()
	at := func(sec, nsec int64) time.Time { return time.Unix(sec, nsec).UTC() }
	testFormat(t, OTLP, []formatCase{
		// gen_ai.usage.input_tokens includes cached tokens (GenAI semconv):
		// 98,000 in with 90,000 cache reads stays 98,000 in.
		{name: "document", file: "otlp_traces.json", wants: []want{
			ok("document 1 span 1 (resourceSpans[0].scopeSpans[0].spans[0])", usage.Record{ID: "5b8efff798038103d269b633813fc60c-eee19b7ec3c1b174",
				OccurredAt: at(1759312800, 0), Workload: "support-bot", Model: "gpt-4o-2024-08-06", InputTokens: 2048, CachedInputTokens: 1536,
				OutputTokens: 180, Requests: 1, LatencyMS: i64(1500), TTFTMS: i64(420),
				Tags: map[string]string{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai"}}),
			skipped("document 1 span 2 (resourceSpans[0].scopeSpans[0].spans[1])", "no gen_ai.usage token attributes"),
			skipped("document 1 span 3 (resourceSpans[0].scopeSpans[0].spans[2])", "invoke_agent"),
			ok("document 1 span 4 (resourceSpans[1].scopeSpans[0].spans[0])", usage.Record{ID: "0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",
				OccurredAt: at(1759316400, 0), Workload: "code-assistant", Model: "claude-sonnet-4-20250514", InputTokens: 98_000,
				CachedInputTokens: 90_000, OutputTokens: 1200, Requests: 1, LatencyMS: i64(12250),
				Tags: map[string]string{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "anthropic"}}),
		}},
		{name: "NDJSON of documents, deprecated names, numeric intValue", file: "otlp_traces.ndjson", wants: []want{
			ok("line 1 span 1 (resourceSpans[0].scopeSpans[0].spans[0])", usage.Record{ID: "4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
				OccurredAt: at(1759320000, 0), Workload: "search", Model: "meta-llama/Llama-3.1-8B-Instruct", InputTokens: 512, OutputTokens: 64,
				Requests: 1, LatencyMS: i64(800), Tags: map[string]string{"gen_ai.operation.name": "chat", "gen_ai.system": "vllm"}}),
			ok("line 2 span 2 (resourceSpans[0].scopeSpans[0].spans[0])", usage.Record{ID: "4bf92f3577b34da6a3ce929d0e0e4737-00f067aa0ba902b8",
				OccurredAt: at(1759320060, 0), Workload: "search", Model: "text-embedding-3-small", InputTokens: 300, Requests: 1, LatencyMS: i64(100),
				Tags: map[string]string{"gen_ai.operation.name": "embeddings", "gen_ai.provider.name": "openai"}}),
		}},
		{name: "workload from a resource attribute", file: "otlp_traces.ndjson", opts: Options{Workload: "team", Tags: []string{}}, wants: []want{
			ok("line 1 span 1 (resourceSpans[0].scopeSpans[0].spans[0])", usage.Record{ID: "4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
				OccurredAt: at(1759320000, 0), Workload: "unassigned", Model: "meta-llama/Llama-3.1-8B-Instruct", InputTokens: 512, OutputTokens: 64,
				Requests: 1, LatencyMS: i64(800)}),
			ok("line 2 span 2 (resourceSpans[0].scopeSpans[0].spans[0])", usage.Record{ID: "4bf92f3577b34da6a3ce929d0e0e4737-00f067aa0ba902b8",
				OccurredAt: at(1759320060, 0), Workload: "discovery", Model: "text-embedding-3-small", InputTokens: 300, Requests: 1, LatencyMS: i64(100)}),
		}},
		{name: "malformed", file: "otlp_malformed.ndjson", wants: []want{
			bad("line 1 span 1 (resourceSpans[0].scopeSpans[0].spans[0])", "cache_read.input_tokens (900) exceeds gen_ai.usage.input_tokens (100)"),
			bad("line 1 span 2 (resourceSpans[0].scopeSpans[0].spans[1])", `intValue "ten" is not an integer`),
			ok("line 1 span 3 (resourceSpans[0].scopeSpans[0].spans[2])", usage.Record{ID: "aa-03", OccurredAt: at(1759320000, 0), Workload: "svc",
				Model: "gpt-4o", InputTokens: 10, OutputTokens: 2, Requests: 1, LatencyMS: i64(250)}),
			bad("line 2", "not valid JSON"),
			bad("line 3 span 4 (resourceSpans[0].scopeSpans[0].spans[0])", "neither gen_ai.response.model nor gen_ai.request.model"),
		}},
	})
}

func TestReadLiteLLM(t *testing.T) {
	t.Parallel()
	at := func(h, m, s, ms int) time.Time { return time.Date(2025, 10, 1, h, m, s, ms*1e6, time.UTC) }
	testFormat(t, LiteLLM, []formatCase{
		// prompt_tokens includes cached tokens in LiteLLM's usage (OpenAI's
		// shape, for Anthropic too): 50,210 in with 48,000 cached stays 50,210.
		{name: "spend logs", file: "litellm_spend_logs.json", wants: []want{
			ok("row 1", usage.Record{ID: "chatcmpl-9f1c2a7e-3b0d-4c55-9a51-2f4d0c6a1e01", OccurredAt: at(12, 0, 0, 0), Workload: "team-support",
				Model: "gpt-4o-2024-08-06", InputTokens: 2100, CachedInputTokens: 1920, OutputTokens: 150, Requests: 1,
				LatencyMS: i64(2480), TTFTMS: i64(350), Tags: map[string]string{
					"api_key": "88dc28d0f030c55ed4ab77ed8faf098196cb1c05df778539800c9f1243fe6b4b", "call_type": "acompletion",
					"custom_llm_provider": "openai", "end_user": "customer-4711", "metadata.user_api_key_alias": "support-prod",
					"metadata.user_api_key_team_alias": "support", "model_group": "gpt-4o", "team_id": "team-support"}}),
			ok("row 2", usage.Record{ID: "msg_01XFDUDYJgAACzvnptvVoYEL", OccurredAt: at(12, 1, 0, 0), Workload: "team-code",
				Model: "claude-sonnet-4-20250514", InputTokens: 50_210, CachedInputTokens: 48_000, OutputTokens: 800, Requests: 1,
				LatencyMS: i64(9750), Tags: map[string]string{
					"api_key": "5a9f0c0e8d1b2a3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4", "call_type": "acompletion",
					"custom_llm_provider": "anthropic", "metadata.user_api_key_alias": "code-assistant", "metadata.user_api_key_team_alias": "code",
					"model_group": "claude-sonnet", "team_id": "team-code", "user": "dev-alice"}}),
			skipped("row 3", "cache_hit"),
			skipped("row 4", "status failure"),
			ok("row 5", usage.Record{ID: "emb-6e1f0a4c", OccurredAt: at(12, 0, 5, 120), Workload: "unassigned", Model: "text-embedding-3-small",
				InputTokens: 120, Requests: 1, LatencyMS: i64(190), Tags: map[string]string{
					"api_key": "0c0e8d1b2a3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b45a9f", "call_type": "aembedding",
					"custom_llm_provider": "openai", "model_group": "text-embedding-3-small"}}),
		}},
		{name: "malformed", file: "litellm_malformed.ndjson", wants: []want{
			bad("line 1", `prompt_tokens: "12x" is not an integer`),
			bad("line 2", "not valid JSON"),
			ok("line 3", usage.Record{ID: "r2", OccurredAt: at(12, 0, 0, 0), Workload: "t", Model: "gpt-4o", InputTokens: 100, CachedInputTokens: 40,
				OutputTokens: 3, Requests: 1, LatencyMS: i64(1000), Tags: map[string]string{"call_type": "acompletion", "team_id": "t"}}),
			bad("line 4", `startTime: "last tuesday" is not a time`),
			bad("line 5", "metadata: want a JSON object"),
			bad("line 6", "id: is required"),
		}},
		{name: "workload from metadata, request tags as a tag", opts: Options{Workload: "metadata.user_api_key_alias", Tags: []string{"request_tags"}},
			text: `{"request_id":"r","prompt_tokens":10,"completion_tokens":1,"startTime":"2025-10-01T12:00:00+00:00","model":"gpt-4o","metadata":{"user_api_key_alias":"k1"},"request_tags":["a:1","b:2"]}`,
			wants: []want{ok("line 1", usage.Record{ID: "r", OccurredAt: at(12, 0, 0, 0), Workload: "k1", Model: "gpt-4o", InputTokens: 10,
				OutputTokens: 1, Requests: 1, Tags: map[string]string{"request_tags": "a:1,b:2"}})}},
	})
}

// TestCachedConversion pins, for each format, how the source's prompt and
// cache counts become MISSION.md's input_tokens (every prompt token) and
// cached_input_tokens (the cache reads among them).
func TestCachedConversion(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name                string
		f                   Format
		text                string
		wantInput, wantHits int64
	}{
		{"ndjson records are already in our meaning", NDJSON,
			`{"id":"a","occurred_at":"2025-10-01T00:00:00Z","workload":"w","model":"m","input_tokens":1000,"cached_input_tokens":600}`, 1000, 600},
		{"csv records are already in our meaning", CSV,
			"id,occurred_at,workload,model,input_tokens,cached_input_tokens\na,2025-10-01T00:00:00Z,w,m,1000,600\n", 1000, 600},
		{"openai input_tokens includes input_cached_tokens", OpenAI,
			`{"object":"page","data":[{"start_time":1759276800,"end_time":1759363200,"results":[{"input_tokens":1000,"input_cached_tokens":600,"output_tokens":5,"num_model_requests":1,"model":"gpt-4o"}]}]}`, 1000, 600},
		{"anthropic adds uncached, both cache writes and cache reads", Anthropic,
			`{"data":[{"starting_at":"2025-10-01T00:00:00Z","ending_at":"2025-10-02T00:00:00Z","results":[{"uncached_input_tokens":100,"cache_creation":{"ephemeral_1h_input_tokens":30,"ephemeral_5m_input_tokens":20},"cache_read_input_tokens":600,"output_tokens":5,"model":"claude-sonnet-4-20250514"}]}]}`, 750, 600},
		{"otlp input_tokens includes cache reads and writes", OTLP,
			`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"t","spanId":"s","startTimeUnixNano":"1759276800000000000","attributes":[{"key":"gen_ai.request.model","value":{"stringValue":"m"}},{"key":"gen_ai.usage.input_tokens","value":{"intValue":"1000"}},{"key":"gen_ai.usage.cache_read.input_tokens","value":{"intValue":"600"}},{"key":"gen_ai.usage.cache_write.input_tokens","value":{"intValue":"300"}},{"key":"gen_ai.usage.output_tokens","value":{"intValue":"5"}}]}]}]}]}`, 1000, 600},
		{"litellm prompt_tokens includes cached_tokens", LiteLLM,
			`[{"request_id":"r","prompt_tokens":1000,"completion_tokens":5,"startTime":"2025-10-01T00:00:00Z","model":"m","metadata":{"usage_object":{"prompt_tokens":1000,"prompt_tokens_details":{"cached_tokens":600},"cache_creation_input_tokens":300,"cache_read_input_tokens":600}}}]`, 1000, 600},
		{"litellm cache_read_input_tokens when cached_tokens is absent", LiteLLM,
			`[{"request_id":"r","prompt_tokens":1000,"completion_tokens":5,"startTime":"2025-10-01T00:00:00Z","model":"m","metadata":{"additional_usage_values":{"cache_read_input_tokens":600}}}]`, 1000, 600},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			items, err := readItems(t, c.f, "", c.text, Options{TokensPerRequest: 100})
			if err != nil || len(items) != 1 || items[0].Err != nil || items[0].Skipped != "" {
				t.Fatalf("err %v, items %+v", err, items)
			}
			r := items[0].Record
			if r.InputTokens != c.wantInput || r.CachedInputTokens != c.wantHits {
				t.Errorf("input %d cached %d, want input %d cached %d", r.InputTokens, r.CachedInputTokens, c.wantInput, c.wantHits)
			}
		})
	}
}

func TestBucketIDScheme(t *testing.T) {
	t.Parallel()
	// sha256 of the JSON list ["openai","start_time=…",…], computed apart
	// from this package: ids of stored records must never change.
	got := bucketID(OpenAI, "start_time=1759276800", "end_time=1759363200", "project_id=proj_support", "user_id=", "api_key_id=",
		"model=gpt-4o-2024-08-06", "batch=", "service_tier=")
	if want := "openai:09b3644a2232e8dc34a5b5d02badb6f28a1312defb2be23dd13adb6bceb12e9d"; got != want {
		t.Errorf("bucketID = %s, want %s", got, want)
	}
	if bucketID(OpenAI, "a=b", "c=") == bucketID(OpenAI, "a=", "b=c=") {
		t.Error("field boundaries are ambiguous")
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		f    Format
		o    Options
		err  string
	}{
		{"unknown workload field", OpenAI, Options{Workload: "workspace_id"}, `"workspace_id" is not a field of openai`},
		{"unknown tag field", Anthropic, Options{Tags: []string{"project_id"}, TokensPerRequest: 1}, `"project_id" is not a field of anthropic`},
		{"empty tag name", LiteLLM, Options{Workload: "tag:"}, "needs a tag name"},
		{"tags on our own records", NDJSON, Options{Tags: []string{"model"}}, "carry their own tags"},
		{"negative tokens per request", Anthropic, Options{TokensPerRequest: -1}, "must be positive"},
		{"bare metadata prefix", LiteLLM, Options{Workload: "metadata."}, "is not a field of litellm"},
		{"unknown format", Format("jsonl"), Options{}, "the formats are ndjson, csv, openai, anthropic, otlp, litellm"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			called := false
			err := Read(strings.NewReader("{}"), c.f, c.o, func(Item) error { called = true; return nil })
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("err %v, want one containing %q", err, c.err)
			}
			if called {
				t.Error("yield called despite bad options")
			}
		})
	}
}

func TestParseFormat(t *testing.T) {
	t.Parallel()
	for _, f := range Formats {
		if got, err := ParseFormat(" " + strings.ToUpper(string(f)) + " "); err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %q, %v", f, got, err)
		}
	}
	if _, err := ParseFormat("parquet"); err == nil || !strings.Contains(err.Error(), "otlp") {
		t.Errorf("ParseFormat(parquet): %v", err)
	}
}

func TestYieldErrorStops(t *testing.T) {
	t.Parallel()
	stop := errors.New("disk full")
	for _, f := range Formats {
		t.Run(string(f), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("testdata", sampleFiles[f][0]))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			err = Read(bytes.NewReader(data), f, Options{TokensPerRequest: 1000}, func(Item) error { n++; return stop })
			if err != stop || n != 1 {
				t.Errorf("err %v after %d items, want the yield error after 1", err, n)
			}
		})
	}
}

// sampleFiles are the testdata files of each format, the fuzz seeds.
var sampleFiles = map[Format][]string{
	NDJSON:    {"ndjson_records.ndjson", "ndjson_malformed.ndjson"},
	CSV:       {"csv_records.csv", "csv_malformed.csv", "csv_unknown_column.csv"},
	OpenAI:    {"openai_page.json", "openai_pages.ndjson", "openai_malformed.ndjson"},
	Anthropic: {"anthropic_report.json", "anthropic_malformed.json"},
	OTLP:      {"otlp_traces.json", "otlp_traces.ndjson", "otlp_malformed.ndjson"},
	LiteLLM:   {"litellm_spend_logs.json", "litellm_malformed.ndjson"},
}

func TestSampleFilesListed(t *testing.T) {
	t.Parallel()
	listed := map[string]bool{}
	for _, files := range sampleFiles {
		for _, f := range files {
			listed[f] = true
		}
	}
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() && !listed[e.Name()] {
			t.Errorf("testdata/%s is not a fuzz seed", e.Name())
		}
	}
}

// FuzzRead feeds any bytes to any format: Read must not panic, and every
// item must be exactly one of a valid record, a bad item or a skipped one,
// numbered in order.
func FuzzRead(f *testing.F) {
	for i, format := range Formats {
		for _, name := range sampleFiles[format] {
			data, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(uint8(i), data)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		format := Formats[int(which)%len(Formats)]
		n := 0
		Read(bytes.NewReader(data), format, Options{TokensPerRequest: 1000}, func(it Item) error {
			if it.Index != n {
				t.Fatalf("item %d has Index %d", n, it.Index)
			}
			n++
			switch {
			case it.Pos == "":
				t.Fatalf("item %d has no position", it.Index)
			case it.Err != nil && it.Skipped != "":
				t.Fatalf("item %d is both bad and skipped", it.Index)
			case it.Err == nil && it.Skipped == "":
				if err := it.Record.Validate(); err != nil {
					t.Fatalf("item %d (%s) is an invalid record: %v", it.Index, it.Pos, err)
				}
			}
			return nil
		})
	})
}
