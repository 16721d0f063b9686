package web

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/bloat"
	"github.com/flopledger/flopledger/estimator"
)

// promptPre extracts the highlighted prompt from an estimate page.
var promptPre = regexp.MustCompile(`(?s)<pre class="prompt"[^>]*>\n(.*?)</pre>`)

// TestPageEstimateHighlightsBloat pastes a prompt with trailing blanks, a
// run of blank lines, HTML and a multi-byte character: the page marks
// exactly the redundant whitespace (by the normalisation rule: trailing
// spaces and tabs at line ends, the middle of a blank-line run, both ends
// of the prompt), shows it visibly, and escapes the rest.
func TestPageEstimateHighlightsBloat(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	prompt := "  <b>Résumé</b> & co   \n\n\n\n\tindented line\t \nnext\n\n"
	q := url.Values{"source": {"model"}, "model": {"llama-3.1-8b"}, "prompt": {prompt}, "output_tokens": {"20"}}
	body := getPage(t, api, "/estimate?"+q.Encode(), 200)
	m := promptPre.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no highlighted prompt in the page")
	}
	want := `<mark class="bloat" title="redundant whitespace">··</mark>` + // the leading blanks
		`&lt;b&gt;Résumé&lt;/b&gt; &amp; co` +
		`<mark class="bloat" title="redundant whitespace">···</mark>` + "\n" + // trailing spaces; the first LF is kept
		`<mark class="bloat" title="redundant whitespace">↵` + "\n" + `↵` + "\n" + `</mark>` + // the middle of the run
		"\n\tindented line" + // the last LF is kept, and the indentation
		`<mark class="bloat" title="redundant whitespace">→·</mark>` + "\nnext" +
		`<mark class="bloat" title="redundant whitespace">↵` + "\n" + `↵` + "\n" + `</mark>` // the end of the prompt
	if m[1] != want {
		t.Fatalf("highlighted prompt:\n%q\nwant\n%q", m[1], want)
	}
	a, err := tokens.Analyze(bloat.O200kBase, prompt)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, "estimate", body, "Whitespace bloat", `<dd class="big">`+formatCount(int64(a.BloatTokens))+` tokens</dd>`,
		`<a href="/estimate?`, "Cost under each plan", "No price plans yet")

	// Browsers send a text box's line breaks as CRLF: they are read as LF,
	// so the same prompt gives the same highlighting, and by POST too.
	q.Set("prompt", strings.ReplaceAll(prompt, "\n", "\r\n"))
	w := postForm(api, "/estimate", q.Encode())
	checkHTML(t, w, 200, "POST /estimate")
	if m := promptPre.FindStringSubmatch(w.Body.String()); m == nil || m[1] != want {
		t.Fatalf("POST: the highlighted prompt differs: %v", m)
	}
}

// TestPageEstimateBreakdown estimates from token counts: the breakdown by
// component, totals with SI units and the exact integers on hover.
func TestPageEstimateBreakdown(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	mustStatus(t, do(api, "POST", "/v1/plans", `{"name": "list-price", "kind": "request", "effective_from": "2026-01-01",
		"prices": {"default": {"input_per_mtok": "3", "output_per_mtok": "15"}}}`), 201, "plan")
	body := getPage(t, api, "/estimate?source=model&model=llama-3.1-8b&input_tokens=60000&output_tokens=200", 200)
	m, _ := estimator.Lookup("llama-3.1-8b")
	e, err := estimator.Compute(m.Architecture, estimator.Request{InputTokens: 60000, OutputTokens: 200, Requests: 1})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, "estimate", body,
		`<dd class="big" id="total-flops"><span title="`+billing.Thousands(e.Total.String())+` FLOPs">`+estimator.HumanFLOPs(e.Total)+`</span></dd>`,
		`<code>attn_scores</code></th><td class="num"><span title="`+billing.Thousands(e.PrefillBreakdown[estimator.AttnScores].String())+` FLOPs">`,
		"<code>lm_head</code>", "<code>router</code>",
		"$0.183", // 60,000·$3 + 200·$15 per million
	)
	// A pasted config.json (here the API's architecture form) works too.
	q := url.Values{"source": {"config"}, "config": {tinyArch}, "input_tokens": {"3"}, "output_tokens": {"2"}}
	b := decodeEstimate(t, do(api, "POST", "/v1/estimate", `{"architecture": `+tinyArch+`, "input_tokens": 3, "output_tokens": 2}`).Body.Bytes())
	mustContain(t, "architecture", getPage(t, api, "/estimate?"+q.Encode(), 200), "(architecture)",
		`<span title="`+billing.Thousands(b.TotalFLOPs.String())+` FLOPs">`+estimator.HumanFLOPs(b.TotalFLOPs)+`</span>`)
}

// TestPageEstimateInvalid re-renders the form with each problem next to
// its field and status 422.
func TestPageEstimateInvalid(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"source=model&model=llama-3.1-8b&input_tokens=10&output_tokens=lots", []string{`id="output_tokens-error">must be a whole number`, `value="lots"`}},
		{"source=model&model=llama-3.1-8b&input_tokens=10", []string{`id="output_tokens-error">is required`}},
		{"source=model&model=lama-3-8b&input_tokens=10&output_tokens=1", []string{`id="model-error">unknown model &#34;lama-3-8b&#34;; closest known:`, `<option value="lama-3-8b" selected>lama-3-8b (unknown)</option>`}},
		{"source=model&model=lama-3-8b&input_tokens=10&output_tokens=x", []string{`id="model-error">unknown model`, `id="output_tokens-error">must be a whole number`, "There are 2 problems"}},
		{"source=config&config=%7Bnope&input_tokens=10&output_tokens=1", []string{`id="config-error">is not a JSON object`}},
		{"source=model&model=gpt2&input_tokens=10&prompt=hi&output_tokens=1", []string{`id="prompt-error">give input_tokens or a prompt, not both`}},
		{"source=model&model=gpt2&output_tokens=1", []string{`id="input_tokens-error">give input_tokens or a prompt`}},
	} {
		w := do(api, "GET", "/estimate?"+tc.query, "")
		checkHTML(t, w, 422, tc.query)
		mustContain(t, tc.query, w.Body.String(), append(tc.want, `role="alert"`)...)
		if strings.Contains(w.Body.String(), `id="result-h"`) {
			t.Errorf("%s: a result is shown for invalid input", tc.query)
		}
	}
}

func TestHighlightPrompt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, prompt string
		spans        []bloat.Span
		want         string
	}{
		{"nothing", "a <b>", nil, "a &lt;b&gt;"},
		{"CR FF VT shown by name", "a\r\f\v", []bloat.Span{{Start: 1, End: 4}}, `a<mark class="bloat" title="redundant whitespace">\r\f\v</mark>`},
		{"after a multi-byte character", "é  ", []bloat.Span{{Start: 2, End: 4}}, `é<mark class="bloat" title="redundant whitespace">··</mark>`},
		{"bad spans skipped", "ab  ", []bloat.Span{{Start: 2, End: 9}, {Start: 3, End: 2}, {Start: 2, End: 3}, {Start: 1, End: 2}}, `ab<mark class="bloat" title="redundant whitespace">·</mark> `},
		{"invalid UTF-8 replaced", "\xff ", []bloat.Span{{Start: 1, End: 2}}, "\uFFFD" + `<mark class="bloat" title="redundant whitespace">·</mark>`},
	} {
		if got := string(highlightPrompt(tc.prompt, tc.spans)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
