package web

import (
	"errors"
	"io/fs"
	"math"
	"math/big"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gin-gonic/gin"
	"github.com/shopspring/decimal"
)

// pageFS is the embedded files with some replaced.
func pageFS(t *testing.T, replace map[string]string) fs.FS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(pageFiles, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := fs.ReadFile(pageFiles, p)
		m[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, body := range replace {
		m[p] = &fstest.MapFile{Data: []byte(body)}
	}
	return m
}

// TestTemplatesParseAtConstruction: the embedded templates parse, and a
// broken one fails the construction (so New panics and the start stops)
// rather than a request.
func TestTemplatesParseAtConstruction(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(readiness{})
	if _, err := newDashboard(s, pageFiles); err != nil {
		t.Fatalf("the embedded templates: %v", err)
	}
	for name, files := range map[string]map[string]string{
		"syntax error":        {"templates/alerts.html": `{{define "content"}}{{if .Alerts}}{{end}`},
		"unknown function":    {"templates/models.html": `{{define "content"}}{{nosuchfunc .}}{{end}}`},
		"no content block":    {"templates/compare.html": `<p>hello</p>`},
		"broken layout":       {"templates/layout.html": `{{define "layout"}}{{template "content" .}}`},
		"missing error page":  {"templates/error.html": ``},
		"missing stylesheet":  {"static/app.css": ""},
		"escaping error":      {"templates/reports.html": `{{define "content"}}<a title="{{.Title}}{{end}}`},
		"unknown asset named": {"templates/layout.html": `{{define "layout"}}{{asset "nope.css"}}{{template "content" .}}{{end}}`},
	} {
		fsys := pageFS(t, files)
		if name == "missing error page" {
			delete(fsys.(fstest.MapFS), "templates/error.html")
		}
		if name == "missing stylesheet" {
			delete(fsys.(fstest.MapFS), "static/app.css")
		}
		if _, err := newDashboard(s, fsys); err == nil {
			t.Errorf("%s: construction succeeded", name)
		}
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("mustDashboard did not panic on a broken template")
			}
		}()
		d, err := newDashboard(s, pageFS(t, map[string]string{"templates/alerts.html": `{{define "content"}}{{end`}))
		if err == nil {
			t.Fatalf("parsed: %v", d)
		}
		panic(err) // what mustDashboard does with it
	}()
}

// TestStaticAssets: the stylesheet is served at a URL carrying its content
// hash, cached for good; the pages link to it; other names are 404.
func TestStaticAssets(t *testing.T) {
	t.Parallel()
	_, e := newTestServer(readiness{})
	d, err := newDashboard(&Server{}, pageFiles)
	if err != nil {
		t.Fatal(err)
	}
	css := d.assetURL["app.css"]
	if !regexp.MustCompile(`^/static/app\.[0-9a-f]{12}\.css$`).MatchString(css) {
		t.Fatalf("asset URL %q carries no hash", css)
	}
	w := do(e, "GET", css, "")
	body, _ := fs.ReadFile(pageFiles, "static/app.css")
	if w.Code != 200 || w.Body.String() != string(body) || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/css") ||
		w.Header().Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Fatalf("GET %s: %d %q %q", css, w.Code, w.Header().Get("Content-Type"), w.Header().Get("Cache-Control"))
	}
	if w := do(e, "GET", "/static/app.css", ""); w.Code != 404 {
		t.Fatalf("an unhashed name must not be served: %d", w.Code)
	}
	if w := do(e, "GET", "/static/app.000000000000.css", ""); w.Code != 404 {
		t.Fatalf("a stale hash must not be served: %d", w.Code)
	}
}

func TestPageHeadersAndNoScript(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	for _, p := range dashboardPages {
		w := do(api, "GET", p, "")
		if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
			t.Errorf("%s: CSP %q", p, csp)
		}
		body := w.Body.String()
		outside := strings.NewReplacer(`xmlns="http://www.w3.org/2000/svg"`, "", "http://HOST/", "").Replace(body)
		if strings.Contains(body, "<script") || strings.Contains(body, " style=") || strings.Contains(outside, "http://") || strings.Contains(outside, "https://") {
			t.Errorf("%s: a script, an inline style or an external URL", p)
		}
		// Every form control has a label.
		for _, m := range regexp.MustCompile(`<(?:input|select|textarea)[^>]*\bid="([^"]+)"`).FindAllStringSubmatch(body, -1) {
			if !strings.Contains(body, `<label for="`+m[1]+`"`) {
				t.Errorf("%s: control %s has no label", p, m[1])
			}
		}
		for _, m := range regexp.MustCompile(`<(?:input|select|textarea)\b[^>]*>`).FindAllString(body, -1) {
			if !strings.Contains(m, ` id="`) && !strings.Contains(m, `type="hidden"`) {
				t.Errorf("%s: control without an id (and so without a label): %s", p, m)
			}
		}
	}
}

func TestFormatters(t *testing.T) {
	t.Parallel()
	dec := decimal.RequireFromString
	for in, want := range map[string]string{
		"0": "$0.00", "6.45": "$6.45", "18.3": "$18.30", "1234.565": "$1,234.57", "1234567.891": "$1,234,567.89",
		"24.77625": "$24.78", "0.5": "$0.50", "0.645": "$0.645", "0.02625": "$0.0263", "0.0045": "$0.0045",
		"0.000123456": "$0.000123", "0.0000001": "$0.0000001", "-143.336": "−$143.34", "-0.004": "−$0.004",
		"0.9996": "$1.00", "0.009999": "$0.01", "0.001": "$0.001",
	} {
		if got := formatMoney(dec(in)); got != want {
			t.Errorf("formatMoney(%s) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"12.34": "+12.3%", "-4.45": "−4.5%", "0": "0.0%", "0.04": "0.0%", "1234.5": "+1,234.5%"} {
		d := dec(in)
		if got := formatSignedPct(&d); got != want {
			t.Errorf("formatSignedPct(%s) = %q, want %q", in, got, want)
		}
	}
	if formatSignedPct(nil) != "—" {
		t.Error("an undefined change must be a dash")
	}
	for in, want := range map[string]string{"0.000046243812345": "$0.00004624", "1.5": "$1.5", "0": "$0", "1234.1234567": "$1,234.123457"} {
		if got := formatPrice(dec(in)); got != want {
			t.Errorf("formatPrice(%s) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "−1,234"} {
		if got := formatCount(in); got != want {
			t.Errorf("formatCount(%d) = %q, want %q", in, got, want)
		}
	}
	n, _ := new(big.Int).SetString("2312000000000", 10)
	if got := string(flopsHTML(n)); got != `<span title="2,312,000,000,000 FLOPs">2.31 TFLOPs</span>` {
		t.Errorf("flopsHTML = %s", got)
	}
	if got := string(paramsHTML(8_030_261_248)); got != `<span title="8,030,261,248 parameters">8.03B</span>` {
		t.Errorf("paramsHTML = %s", got)
	}
}

func TestChartSVG(t *testing.T) {
	t.Parallel()
	ch := chart{ID: "c", Title: "A <title>", Desc: "d & d", XLabel: "day", YLabel: "FLOPs", X: []string{"1", "2", "3"},
		Series: []chartSeries{
			{Name: "Prefill", Class: "prefill", Values: []float64{1e12, 0, 3e12}, Texts: []string{"a", "b", "c"}},
			{Name: "Decode", Class: "decode", Values: []float64{2e12, 0, 1e12}, Texts: []string{"d", "e", "f"}},
		}, Kind: chartStacked, YTick: flopsTick}
	svg := string(ch.SVG())
	mustContain(t, "chart", svg, `role="img" aria-labelledby="c-t c-d"`, `<title id="c-t">A &lt;title&gt;</title>`, `<desc id="c-d">d &amp; d</desc>`,
		`<title>3 — Prefill: c</title>`, "4.00 TFLOPs", "0 FLOPs", ">day<", ">FLOPs<")
	if n := strings.Count(svg, `<rect class="prefill"`); n != 1+2 { // legend + two non-zero days
		t.Errorf("%d prefill rects", n)
	}
	ch.Kind = chartLines
	ch.Series[1].Values[1] = math.NaN() // a gap splits the line
	svg = string(ch.SVG())
	if n := strings.Count(svg, "<polyline"); n != 1 { // prefill whole; decode in two pieces of one point: no line
		t.Errorf("%d polylines: %s", n, svg)
	}
	empty := chart{ID: "e", X: []string{"1"}, Series: []chartSeries{{Name: "x", Values: []float64{0}}}, Empty: "No data"}
	mustContain(t, "empty chart", string(empty.SVG()), ">No data<")
}

// TestPagePanicIsAnHTMLPage: a failure inside a page answers the HTML
// error page with a 500 that hides the cause.
func TestPagePanicIsAnHTMLPage(t *testing.T) {
	t.Parallel()
	s, e := newTestServer(readiness{})
	d, err := newDashboard(s, pageFiles)
	if err != nil {
		t.Fatal(err)
	}
	e.GET("/boom", d.pageMiddleware, func(*gin.Context) { panic("secret detail") })
	e.GET("/fails", d.pageMiddleware, func(c *gin.Context) { d.fail(c, errors.New("secret detail")) })
	for _, p := range []string{"/boom", "/fails"} {
		w := do(e, "GET", p, "")
		checkHTML(t, w, 500, p)
		if strings.Contains(w.Body.String(), "secret") || !strings.Contains(w.Body.String(), "Quote request id "+w.Header().Get("X-Request-ID")) {
			t.Errorf("%s: the 500 page must hide the cause and quote the request id: %s", p, w.Body)
		}
	}
}
