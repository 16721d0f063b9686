package web

import (
	"encoding/json"
	"errors"
	"html/template"
	"math/big"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/bloat"
	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/estimator"
	"github.com/flopledger/flopledger/quote"
)

// estimateForm is the estimator's form as typed. A GET carries it in the
// query string, so that a result can be shared as a link; a long prompt
// goes by POST and renders the same page.
type estimateForm struct {
	Source            string // "model" or "config"
	Model             string
	Config            string // a config.json, or the API's architecture JSON
	Prompt            string
	InputTokens       string
	CachedInputTokens string
	OutputTokens      string
	Requests          string
	Tokenizer         string
}

var estimateFields = []string{"source", "model", "config", "prompt", "input_tokens", "cached_input_tokens", "output_tokens", "requests", "tokenizer"}

// readEstimateForm reads the form. Browsers send a text box's line breaks
// as CRLF whatever was pasted, so CRLF is read back as LF: otherwise every
// pasted prompt would be measured as CRLF text, which the bloat rule treats
// differently (a CR is whitespace, not a line end).
func readEstimateForm(q url.Values) estimateForm {
	lf := func(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }
	return estimateForm{
		Source: q.Get("source"), Model: strings.TrimSpace(q.Get("model")), Config: lf(q.Get("config")), Prompt: lf(q.Get("prompt")),
		InputTokens: strings.TrimSpace(q.Get("input_tokens")), CachedInputTokens: strings.TrimSpace(q.Get("cached_input_tokens")),
		OutputTokens: strings.TrimSpace(q.Get("output_tokens")), Requests: strings.TrimSpace(q.Get("requests")), Tokenizer: q.Get("tokenizer"),
	}
}

// values is the form as a query string, empty fields left out.
func (f estimateForm) values() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"source": f.Source, "model": f.Model, "config": f.Config, "prompt": f.Prompt,
		"input_tokens": f.InputTokens, "cached_input_tokens": f.CachedInputTokens, "output_tokens": f.OutputTokens,
		"requests": f.Requests, "tokenizer": f.Tokenizer} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

// estimateView is the estimator page: the form, and the result once asked.
type estimateView struct {
	page
	Form        estimateForm
	Catalog     []catalog.Model
	Registered  []catalog.Model
	FieldErrors map[string]string
	Result      *quote.Result
	Components  []componentRow
	Totals      componentRow
	PromptHTML  template.HTML
	BloatPct    *decimal.Decimal
	ShareURL    string
	Posted      bool
}

// componentRow is one component's FLOPs in each phase.
type componentRow struct {
	Name                   string
	Prefill, Decode, Total *big.Int
}

// maxShareURL bounds the link offered to share a result: longer URLs are
// cut by some servers and chat tools.
const maxShareURL = 8000

func (d *dashboard) estimateForm(c *gin.Context) {
	q := c.Request.URL.Query()
	asked := false
	for _, k := range estimateFields {
		asked = asked || q.Has(k)
	}
	if !asked {
		d.renderEstimate(c, http.StatusOK, estimateView{Form: estimateForm{Source: "model", Model: "llama-3.1-8b", OutputTokens: "200"}})
		return
	}
	d.runEstimate(c, readEstimateForm(q), false)
}

func (d *dashboard) estimatePost(c *gin.Context) {
	if err := d.parseForm(c); err != nil {
		d.fail(c, err)
		return
	}
	d.runEstimate(c, readEstimateForm(c.Request.PostForm), true)
}

func (d *dashboard) runEstimate(c *gin.Context, f estimateForm, posted bool) {
	v := estimateView{Form: f, Posted: posted, FieldErrors: map[string]string{}}
	req, bad := f.request()
	if len(bad) > 0 && req.Model != "" {
		// Every problem at once: the model's too, though the form's own
		// problems keep the estimate from running.
		var nf *catalog.NotFoundError
		if _, err := d.s.models.Resolve(c.Request.Context(), req.Model); errors.As(err, &nf) {
			bad = append(bad, estimator.Problem{Field: "model", Message: nf.Error()})
		} else if err != nil {
			d.fail(c, err)
			return
		}
	}
	if len(bad) == 0 {
		res, err := d.s.quotes.Estimate(c.Request.Context(), req)
		var nf *catalog.NotFoundError
		switch {
		case errors.As(err, &nf):
			bad = append(bad, estimator.Problem{Field: "model", Message: nf.Error()})
		case err != nil:
			ps, ok := validationProblems(err)
			if !ok {
				d.fail(c, err)
				return
			}
			bad = append(bad, ps...)
		default:
			v.Result = &res
		}
	}
	if len(bad) > 0 {
		for _, p := range bad {
			field := formField(p.Field, f.Source)
			msg := p.Message
			if p.Field != "" && p.Field != field {
				msg = p.Field + ": " + msg // name the part of the JSON or of the request at fault
			}
			if prev, ok := v.FieldErrors[field]; ok {
				msg = prev + "; " + msg
			}
			v.FieldErrors[field] = msg
			v.Errors = append(v.Errors, problemText(p))
		}
		d.renderEstimate(c, http.StatusUnprocessableEntity, v)
		return
	}
	r := v.Result
	for _, comp := range []estimator.Component{estimator.QProj, estimator.KVProj, estimator.AttnScores, estimator.AttnValues,
		estimator.OutProj, estimator.MLP, estimator.Router, estimator.LMHead} {
		pre, dec := toBig(r.Breakdown.Prefill[comp]), toBig(r.Breakdown.Decode[comp])
		v.Components = append(v.Components, componentRow{Name: string(comp), Prefill: pre, Decode: dec, Total: new(big.Int).Add(pre, dec)})
	}
	v.Totals = componentRow{Name: "total", Prefill: r.PrefillFLOPs, Decode: r.DecodeFLOPs, Total: r.TotalFLOPs}
	if r.Bloat != nil {
		v.PromptHTML = highlightPrompt(f.Prompt, r.Bloat.RedundantSpans)
		if r.Bloat.Tokens > 0 {
			p := decimal.NewFromInt(r.Bloat.BloatTokens).Mul(decimal.NewFromInt(100)).DivRound(decimal.NewFromInt(r.Bloat.Tokens), 4)
			v.BloatPct = &p
		}
	}
	if share := "/estimate?" + f.values().Encode(); len(share) <= maxShareURL {
		v.ShareURL = share
	}
	d.renderEstimate(c, http.StatusOK, v)
}

func (d *dashboard) renderEstimate(c *gin.Context, status int, v estimateView) {
	errs := v.Errors
	v.page = d.pageFor(c, "Estimator", "/estimate")
	v.Errors = errs
	models, err := d.s.models.List(c.Request.Context())
	if err != nil {
		d.fail(c, err)
		return
	}
	for _, m := range models {
		if m.Source == catalog.SourceCatalog {
			v.Catalog = append(v.Catalog, m)
		} else {
			v.Registered = append(v.Registered, m)
		}
	}
	d.render(c, status, "estimate.html", v)
}

// request turns the form into the estimate API's request; the problems it
// finds are those of the form itself (a number that is not one, JSON that
// is not JSON). The rest is quote's to check.
func (f estimateForm) request() (quote.Request, []estimator.Problem) {
	var req quote.Request
	var ps []estimator.Problem
	add := func(field, msg string) { ps = append(ps, estimator.Problem{Field: field, Message: msg}) }
	switch f.Source {
	case "config":
		raw := strings.TrimSpace(f.Config)
		var probe map[string]json.RawMessage
		switch {
		case raw == "":
			add("config", "paste a config.json (or an architecture), or choose a model from the list")
		case json.Unmarshal([]byte(raw), &probe) != nil:
			add("config", "is not a JSON object")
		case probe["d_model"] != nil: // the API's architecture form
			var a estimator.Architecture
			if err := decodeStrict([]byte(raw), &a); err != nil {
				if ps2, ok := validationProblems(err); ok {
					for _, p := range ps2 {
						add("architecture."+p.Field, p.Message)
					}
				} else {
					add("config", err.Error())
				}
			}
			req.Architecture = &a
		default:
			req.HFConfig = json.RawMessage(raw)
		}
	default:
		if f.Model == "" {
			add("model", "choose a model")
		}
		req.Model = f.Model
	}
	num := func(field, s string) *int64 {
		if s == "" {
			return nil
		}
		n, err := strconv.ParseInt(strings.ReplaceAll(strings.ReplaceAll(s, ",", ""), "_", ""), 10, 64)
		if err != nil {
			add(field, "must be a whole number")
			return nil
		}
		return &n
	}
	if f.Prompt != "" {
		p := f.Prompt
		req.Prompt = &p
		if f.Tokenizer != "" {
			req.Tokenizer = f.Tokenizer
		}
	}
	req.InputTokens = num("input_tokens", f.InputTokens)
	if n := num("cached_input_tokens", f.CachedInputTokens); n != nil {
		req.CachedInputTokens = *n
	}
	req.OutputTokens = num("output_tokens", f.OutputTokens)
	req.Requests = num("requests", f.Requests)
	return req, ps
}

// formField is the form control a problem of the request belongs to.
func formField(field, source string) string {
	switch {
	case strings.HasPrefix(field, "architecture") || strings.HasPrefix(field, "hf_config"):
		return "config"
	case field == "model" && source == "config":
		return "config"
	}
	for _, f := range estimateFields {
		if field == f {
			return f
		}
	}
	return ""
}

// highlightPrompt writes the prompt HTML-escaped, with each redundant span
// in <mark class="bloat"> and its whitespace made visible: · for a space,
// → for a tab, ↵ before a line break, and \r \f \v for CR, FF and VT.
// Spans are byte ranges of ASCII whitespace, so they never split a UTF-8
// character; ranges out of order or out of bounds are skipped, and bytes
// that are not UTF-8 show as U+FFFD.
func highlightPrompt(prompt string, spans []bloat.Span) template.HTML {
	var b strings.Builder
	esc := func(s string) { b.WriteString(template.HTMLEscapeString(strings.ToValidUTF8(s, "\uFFFD"))) }
	last := 0
	for _, s := range spans {
		if s.Start < last || s.End <= s.Start || s.End > len(prompt) {
			continue
		}
		esc(prompt[last:s.Start])
		b.WriteString(`<mark class="bloat" title="redundant whitespace">`)
		for _, ch := range []byte(prompt[s.Start:s.End]) {
			switch ch {
			case ' ':
				b.WriteString("·")
			case '\t':
				b.WriteString("→")
			case '\n':
				b.WriteString("↵\n")
			case '\r':
				b.WriteString(`\r`)
			case '\f':
				b.WriteString(`\f`)
			case '\v':
				b.WriteString(`\v`)
			default: // not whitespace: a span from elsewhere; shown as it is
				esc(string(ch))
			}
		}
		b.WriteString(`</mark>`)
		last = s.End
	}
	esc(prompt[last:])
	return template.HTML(b.String())
}
