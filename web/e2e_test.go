package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/flopledger/flopledger/bloat"
)

// TestE2EDashboard drives a real headless Chromium through the dashboard
// as a person would, against the real handler (every middleware, the real
// sign-in) over a real PostgreSQL: sign in with the form, read the
// overview, open a workload from its table, move about with the keyboard,
// estimate a pasted prompt and see its whitespace bloat, acknowledge an
// alert, make a report and download its CSV. Any console error, uncaught
// exception, failed request or error status that a step did not expect
// fails the step it happened in. Each page is photographed at desktop and
// phone size into testdata/screenshots/.
//
// The subtests run one after the other in one tab, not in parallel: each
// goes on from the page and the state the one before left (the session
// cookie of the sign-in, the page it ended on, the acknowledged alert), and
// one browser for the whole run keeps it within the time of a CI run on
// two cores. The test as a whole runs in parallel with the package's
// others.
func TestE2EDashboard(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	alertID := seedDashboard(t, api)
	seedMoreWorkloads(t, api)
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close) // after the browser is gone (cleanups run last first)
	b := newE2EBrowser(t, srv.URL)

	if !t.Run("sign in with the form", func(t *testing.T) {
		defer b.w.check(t)
		// A page without a session sends the reader to the form, and back.
		b.open(t, "/")
		if got := b.location(t); got != "/signin?next=%2F" {
			t.Fatalf("without a session / went to %q", got)
		}
		b.shoot(t, "signin")
		// The key field has the focus: the form works by keyboard alone.
		if got := b.focused(t); got != "input#key" {
			t.Fatalf("the focus is on %q, want the key field", got)
		}
		b.w.expect("/signin", http.StatusUnauthorized)
		b.follow(t, "a wrong key", http.StatusUnauthorized, chromedp.KeyEvent("flk_not-a-key"+kb.Enter))
		b.mustShow(t, "a wrong key", "There is a problem", "That key is not valid")
		if got := b.focused(t); got != "input#key" {
			t.Fatalf("after a wrong key the focus is on %q, want the key field", got)
		}
		b.follow(t, "the admin key", 200, chromedp.KeyEvent(testAdminKey+kb.Enter))
		if got := b.location(t); got != "/" {
			t.Fatalf("the sign-in went to %q, want /", got)
		}
		if who := b.text(t, ".signout .who"); who == "" {
			t.Error("the header does not say who is signed in")
		}
	}) {
		t.FailNow() // every other step needs the session
	}

	t.Run("overview", func(t *testing.T) {
		defer b.w.check(t)
		if got := b.text(t, "main h1"); got != "Overview" {
			t.Errorf("heading %q", got)
		}
		rows := eval[[]string](t, b, `[...document.querySelectorAll("#workloads tbody th")].map(th => th.innerText)`)
		slices.Sort(rows)
		if want := []string{"classifier", "code-assistant", "doc-summarizer", "rag-search", "support-chat"}; !slices.Equal(rows, want) {
			t.Errorf("workload rows %q, want %q", rows, want)
		}
		if got := b.text(t, "#total-request"); !strings.HasPrefix(got, "$") {
			t.Errorf("request plan total %q", got)
		}
		if n := b.count(t, "svg"); n < 2 {
			t.Errorf("%d charts, want the FLOPs and the cost chart", n)
		}
		mustContain(t, "open alerts", b.text(t, "ul.alerts"), "whitespace bloat", "rag-search")
		b.shoot(t, "overview")
	})

	t.Run("open a workload from the table", func(t *testing.T) {
		defer b.w.check(t)
		b.follow(t, "click support-chat", 200, chromedp.Click(chromedp.CSS(`#workloads a[href="/workloads/support-chat?month=2026-10"]`)))
		if got := b.location(t); got != "/workloads/support-chat?month=2026-10" {
			t.Fatalf("the link went to %q", got)
		}
		if got := b.text(t, "main h1"); got != "Workload support-chat" {
			t.Errorf("heading %q", got)
		}
		b.mustShow(t, "workload", "$6.45", "1,000", "64.5%", "Latency, median (p50)")
		if n := b.count(t, "svg"); n < 3 {
			t.Errorf("%d charts on the workload page", n)
		}
		b.shoot(t, "workload")
	})

	t.Run("the keyboard reaches the nav and the skip link", func(t *testing.T) {
		defer b.w.check(t)
		b.open(t, "/")
		// From the top of a fresh page: the skip link, the brand, then the
		// first link of the main nav.
		for i, want := range []string{"a Skip to the content", "a flopledger", "a Overview", "a Compare"} {
			b.step(t, "Tab", chromedp.KeyEvent(kb.Tab))
			if got := b.focused(t); got != want {
				t.Fatalf("Tab %d: the focus is on %q, want %q", i+1, got, want)
			}
		}
		if !eval[bool](t, b, `document.activeElement.closest('nav[aria-label="Main"]') !== null`) {
			t.Fatal("the focused link is not in the main nav")
		}
		b.follow(t, "Enter on Compare", 200, chromedp.KeyEvent(kb.Enter))
		if got := b.location(t); got != "/compare" {
			t.Fatalf("Enter on Compare went to %q", got)
		}
		if got := b.text(t, `nav[aria-label="Main"] a[aria-current="page"]`); got != "Compare" {
			t.Errorf("the nav marks %q as the current page", got)
		}
		b.mustShow(t, "compare", "Revenue-neutral price", "break-even", "$6.45", "$18.30")
		// The skip link moves the focus past the header to the content.
		b.step(t, "Tab, Enter", chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Enter))
		if got := b.focused(t); !strings.HasPrefix(got, "main#main ") {
			t.Errorf("after the skip link the focus is on %.40q, want main", got)
		}
		b.shoot(t, "compare")
	})

	t.Run("estimate a pasted prompt and see its bloat", func(t *testing.T) {
		defer b.w.check(t)
		b.follow(t, "click Estimator", 200, chromedp.Click(chromedp.CSS(`nav a[href="/estimate"]`)))
		// Blanks at both ends, trailing blanks, a run of blank lines, a tab:
		// pasted (Input.insertText types no keys, so the tab stays text).
		prompt := "  <b>Résumé</b> & co   \n\n\n\n\tindented line\t \nnext\n\n"
		b.step(t, "paste the prompt", chromedp.Focus(chromedp.ID("prompt")), chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, input.InsertText, input.InsertTextParams{Text: prompt})
			return err
		}))
		b.follow(t, "click Estimate", 200, chromedp.Click(chromedp.CSS(`.buttons button:not([formmethod])`)))
		if got := b.location(t); !strings.HasPrefix(got, "/estimate?") || !strings.Contains(got, "prompt=") {
			t.Errorf("the estimate is not a link to share: %q", got)
		}
		marks := eval[[]string](t, b, `[...document.querySelectorAll("pre.prompt mark.bloat")].map(m => m.textContent)`)
		// As TestPageEstimateHighlightsBloat: the leading blanks, the
		// trailing ones, the middle of the blank run, the tab and blank at
		// a line's end, the blank lines at the end.
		if want := []string{"··", "···", "↵\n↵\n", "→·", "↵\n↵\n"}; !slices.Equal(marks, want) {
			t.Errorf("highlighted bloat %q, want %q", marks, want)
		}
		if got := eval[string](t, b, `document.querySelector("pre.prompt").innerText`); !strings.Contains(got, "<b>Résumé</b> & co") {
			t.Errorf("the prompt is not shown as text: %q", got)
		}
		a, err := tokens.Analyze(bloat.O200kBase, prompt)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := b.text(t, ".card.bloat dd.big"), formatCount(int64(a.BloatTokens))+" tokens"; got != want || a.BloatTokens == 0 {
			t.Errorf("bloat card %q, want %q", got, want)
		}
		if got := eval[string](t, b, `document.getElementById("prompt").value`); got != prompt {
			t.Errorf("the form does not keep the prompt: %q", got)
		}
		if b.count(t, "#costs tbody tr") != 2 || b.text(t, "#total-flops") == "" {
			t.Error("no cost under the two plans, or no FLOPs total")
		}
		b.shoot(t, "estimate")
	})

	t.Run("acknowledge an alert", func(t *testing.T) {
		defer b.w.check(t)
		b.follow(t, "click Alerts", 200, chromedp.Click(chromedp.CSS(`nav a[href="/alerts"]`)))
		row := "#alert-" + alertID
		if got := b.text(t, row+" .badge"); got != "open" {
			t.Fatalf("the alert is %q, want open", got)
		}
		mustContain(t, "alert row", b.text(t, row), "rag-search", "whitespace bloat")
		b.shoot(t, "alerts")
		b.follow(t, "click Acknowledge", 200, chromedp.Click(chromedp.CSS(row+` button[aria-label="Acknowledge alert `+alertID+`"]`)))
		if got := b.location(t); got != "/alerts?done="+alertID+"%3Aacknowledged" {
			t.Errorf("after the click the page is %q", got)
		}
		if got := b.text(t, "p.flash"); got != "Alert "+alertID+" acknowledged." {
			t.Errorf("flash %q", got)
		}
		if got := b.text(t, row+" .badge"); got != "acknowledged" {
			t.Errorf("the row says %q, want acknowledged", got)
		}
		if b.count(t, row+` form[action$="/ack"]`) != 0 || b.count(t, row+` form[action$="/resolve"]`) != 1 {
			t.Error("an acknowledged alert must offer Resolve and not Acknowledge")
		}
		var got struct {
			State          string  `json:"state"`
			AcknowledgedAt *string `json:"acknowledged_at"`
		}
		w := do(api, "GET", "/v1/alerts/"+alertID, "")
		if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || w.Code != 200 || got.State != "acknowledged" || got.AcknowledgedAt == nil {
			t.Errorf("GET /v1/alerts/%s: %d %s", alertID, w.Code, w.Body)
		}
	})

	t.Run("make a report and download its CSV", func(t *testing.T) {
		defer b.w.check(t)
		b.follow(t, "click Reports", 200, chromedp.Click(chromedp.CSS(`nav a[href="/reports"]`)))
		// A month field is a date picker: its value is set as a picker
		// would set it.
		b.follow(t, "make October's report", 200,
			chromedp.SetValue(chromedp.ID("month"), "2026-10"),
			chromedp.Click(chromedp.CSS(`form[action="/reports"] button[type="submit"]`)))
		id := strings.TrimPrefix(b.location(t), "/reports?made=")
		if got := b.text(t, "p.flash"); got != "Report "+id+" made." {
			t.Fatalf("flash %q (page %q)", got, b.location(t))
		}
		row := "#report-" + id
		if b.count(t, row+".highlight") != 1 {
			t.Errorf("the new report %s is not highlighted", id)
		}
		mustContain(t, "report row", b.text(t, row), "October 2026", "list-price", "flops-tariff")
		b.shoot(t, "reports")

		dir := t.TempDir()
		file, name := b.download(t, dir, chromedp.Click(chromedp.CSS(row+` a[href="/v1/reports/`+id+`.csv"]`)))
		if name != "flopledger-monthly-2026-10.csv" {
			t.Errorf("the download is named %q", name)
		}
		want := do(api, "GET", "/v1/reports/"+id+".csv", "")
		if want.Code != 200 || file != want.Body.String() {
			t.Errorf("the downloaded CSV differs from the API's (%d):\n%s\nwant\n%s", want.Code, file, want.Body)
		}
		mustContain(t, "CSV", file, "support-chat", "code-assistant", "rag-search", "doc-summarizer", "classifier")
	})

	t.Run("models and plans", func(t *testing.T) {
		defer b.w.check(t)
		b.follow(t, "click Models & plans", 200, chromedp.Click(chromedp.CSS(`nav a[href="/models"]`)))
		b.mustShow(t, "models", "llama-3.1-8b", "list-price", "flops-tariff", "(in force)")
		b.shoot(t, "models")
	})
}

// download runs click, which must start a download, lets the browser save
// the file into dir, and returns its content and the name the browser
// suggested for it (from Content-Disposition).
func (b *e2eBrowser) download(t *testing.T, dir string, click chromedp.Action[chromedp.Void]) (content, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, e2eStepTimeout)
	defer cancel()
	// allowAndName saves the file under its download's GUID, so that the
	// test knows the path whatever the name.
	if _, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: new(true),
	}); err != nil {
		t.Fatalf("set the download folder: %v", err)
	}
	begun := chromedp.BrowserEvents(ctx, browser.DownloadWillBegin)
	progress := chromedp.BrowserEvents(ctx, browser.DownloadProgress)
	if err := chromedp.Do(ctx, click); err != nil {
		t.Fatalf("click the download: %v", err)
	}
	var guid string
	for ev, err := range begun {
		if err != nil {
			t.Fatalf("no download began: %v", err)
		}
		guid, name = ev.GUID, ev.SuggestedFilename
		break
	}
	for ev, err := range progress {
		if err != nil {
			t.Fatalf("the download of %s did not complete: %v", name, err)
		}
		if ev.GUID != guid {
			continue
		}
		if ev.State == browser.DownloadProgressStateCanceled {
			t.Fatalf("the download of %s was canceled", name)
		}
		if ev.State == browser.DownloadProgressStateCompleted {
			break
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, guid))
	if err != nil {
		t.Fatal(err)
	}
	return string(data), name
}

// seedMoreWorkloads adds, after seedDashboard's month, two steady workloads
// of the first half of October 2026 (after the alerts were evaluated, so
// that they open none): a document summarizer on llama-3.1-70b, 12 records
// a day, and a classifier on qwen2.5-7b, 8 a day — 300 records in all.
func seedMoreWorkloads(t *testing.T, api http.Handler) {
	t.Helper()
	var nd strings.Builder
	for day := 1; day <= 15; day++ {
		for h := range 12 {
			fmt.Fprintf(&nd, `{"id": "d%d-%d", "occurred_at": "2026-10-%02dT%02d:15:00Z", "workload": "doc-summarizer", "model": "llama-3.1-70b", "requests": 5, "input_tokens": %d, "output_tokens": 600, "latency_ms": %d, "tags": {"team": "docs"}}`+"\n",
				day, h, day, 8+h, 8000+100*h, 2000+37*h)
		}
		for h := range 8 {
			fmt.Fprintf(&nd, `{"id": "q%d-%d", "occurred_at": "2026-10-%02dT%02d:40:00Z", "workload": "classifier", "model": "qwen2.5-7b", "requests": 50, "input_tokens": 20000, "output_tokens": 500, "latency_ms": %d, "tags": {"team": "trust"}}`+"\n",
				day, h, day, 9+h, 120+5*h)
		}
	}
	w := do(api, "POST", "/v1/usage", nd.String(), "Content-Type", "application/x-ndjson")
	var res struct{ Accepted int }
	if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil || w.Code != 200 || res.Accepted != 300 {
		t.Fatalf("usage: %d %s", w.Code, w.Body)
	}
}
