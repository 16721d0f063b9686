package web

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/device"
)

// The end-to-end tests drive Debian's Chromium, never a downloaded browser:
// CI installs the package, and a machine without it fails with the command
// that fixes it.
const chromiumPath = "/usr/bin/chromium"

// e2eStepTimeout bounds one browser action (a click and the page it
// loads, a screenshot): a hung page fails its step, not the whole run.
const e2eStepTimeout = 20 * time.Second

// screenshotDir is where the tests leave a picture of every page, at both
// sizes, for a person to look at (git-ignored).
var screenshotDir = filepath.Join("testdata", "screenshots")

// The two sizes every page is photographed at: a laptop, and a phone
// (390×844 CSS pixels, the iPhone 13 that device.IPhone13 emulates, with
// its mobile viewport and touch).
var (
	desktopDevice = device.Info{Name: "desktop", Width: 1280, Height: 900, Scale: 1, Landscape: true}
	phoneDevice   = device.IPhone13
)

// e2eBrowser is one headless Chromium with one tab, against base (the URL
// of an httptest server), and the watcher of that tab.
type e2eBrowser struct {
	ctx  context.Context // the tab
	base string
	w    *pageWatcher
}

// newE2EBrowser starts Chromium with a fresh profile. It is closed (and its
// process waited for) when the test ends, before the profile is removed.
func newE2EBrowser(t *testing.T, base string) *e2eBrowser {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("the end-to-end tests need Chromium at %s (%v): run `apt-get install -y chromium`", chromiumPath, err)
	}
	// A start is tried twice: once in many runs Chromium has exited at
	// start-up before it answered, with nothing in its output but the
	// usual complaints about D-Bus. A second failure fails the test.
	var err error
	for try := 1; try <= 2; try++ {
		var b *e2eBrowser
		if b, err = startE2EBrowser(t, base); err == nil {
			return b
		}
		t.Logf("start Chromium, try %d: %v", try, err)
	}
	t.Fatalf("start Chromium: %v", err)
	return nil
}

func startE2EBrowser(t *testing.T, base string) (*e2eBrowser, error) {
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(int(desktopDevice.Width), int(desktopDevice.Height)),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true), // the tests run as root in a container
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("password-store", "basic"),     // no keyring daemon to ask
		chromedp.Flag("hide-scrollbars", true),       // screenshots without a scrollbar's width
		chromedp.Flag("force-color-profile", "srgb"), // the same colours on every machine
		chromedp.Flag("mute-audio", true),
	)
	w := newPageWatcher()
	ctx, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithListener(w.listen))
	stop := func() {
		cancelTab()
		cancelAlloc() // waits for the browser to exit, so that the profile can go
	}
	// The first call starts the browser and opens the tab; the browser
	// lives as long as the context of that call, so it gets no deadline.
	if err := chromedp.Do(ctx); err != nil {
		stop()
		return nil, err
	}
	t.Cleanup(stop)
	return &e2eBrowser{ctx: ctx, base: base, w: w}, nil
}

// step runs actions with a deadline of their own (the browser outlives it).
func (b *e2eBrowser) step(t *testing.T, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, e2eStepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// follow runs actions that load a page (a click on a link or a submit
// button, a key that submits a form) and waits for that page; it fails
// unless the page's final response has the status.
func (b *e2eBrowser) follow(t *testing.T, what string, status int64, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, e2eStepTimeout)
	defer cancel()
	resp, err := chromedp.RunResponse(ctx, actions...)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if resp == nil || resp.Status != status {
		got := int64(0)
		if resp != nil {
			got = resp.Status
		}
		t.Fatalf("%s: the page came with status %d, want %d", what, got, status)
	}
}

// open loads a page of the dashboard by its path, like a typed address.
func (b *e2eBrowser) open(t *testing.T, path string) {
	t.Helper()
	b.follow(t, "open "+path, 200, chromedp.Navigate(b.base+path))
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, b *e2eBrowser, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, e2eStepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// text is the visible text of the first element that matches a CSS
// selector ("" when there is none), read without waiting for it.
func (b *e2eBrowser) text(t *testing.T, css string) string {
	t.Helper()
	return eval[string](t, b, fmt.Sprintf(`(document.querySelector(%q) || {innerText: ""}).innerText`, css))
}

// count is the number of elements that match a CSS selector.
func (b *e2eBrowser) count(t *testing.T, css string) int {
	t.Helper()
	return eval[int](t, b, fmt.Sprintf(`document.querySelectorAll(%q).length`, css))
}

// location is the path and query of the page (without the fragment).
func (b *e2eBrowser) location(t *testing.T) string {
	t.Helper()
	return eval[string](t, b, `location.pathname + location.search`)
}

// focused describes document.activeElement: its tag, id and text.
func (b *e2eBrowser) focused(t *testing.T) string {
	t.Helper()
	return eval[string](t, b, `(e => (e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + " " + (e.innerText || "")).trim())(document.activeElement)`)
}

// mustShow fails unless the page's visible text holds every string.
func (b *e2eBrowser) mustShow(t *testing.T, what string, wants ...string) {
	t.Helper()
	mustContain(t, what, b.text(t, "body"), wants...)
}

// shoot writes full-page screenshots of the page at both sizes to
// testdata/screenshots/<name>-desktop.png and <name>-phone.png, and leaves
// the tab at the desktop size.
func (b *e2eBrowser) shoot(t *testing.T, name string) {
	t.Helper()
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, size := range []struct {
		label string
		dev   chromedp.Device
	}{{"phone", phoneDevice}, {"desktop", desktopDevice}} {
		ctx, cancel := context.WithTimeout(b.ctx, e2eStepTimeout)
		png, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) ([]byte, error) {
			if _, err := chromedp.Emulate(size.dev)(ctx, tg); err != nil {
				return nil, err
			}
			return chromedp.FullScreenshot(100)(ctx, tg) // 100: PNG
		})
		cancel()
		if err != nil {
			t.Fatalf("screenshot of %s at %s size: %v", name, size.label, err)
		}
		if err := os.WriteFile(filepath.Join(screenshotDir, name+"-"+size.label+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// pageWatcher collects what a person would see as broken in the browser's
// developer tools: console errors, uncaught exceptions, errors of the
// browser's log (a refused style or script, a failed load), requests that
// failed and answers with a status of 400 or more, except the answers a
// test announced with expect.
type pageWatcher struct {
	mu       sync.Mutex
	urls     map[network.RequestID]string // of every request, for the failures that name only the id
	expected map[string]int64             // a path and the status a test expects from it once
	excused  map[network.RequestID]bool   // the expected answers, whose log entries are expected too
	problems []string
}

func newPageWatcher() *pageWatcher {
	return &pageWatcher{urls: map[network.RequestID]string{}, expected: map[string]int64{}, excused: map[network.RequestID]bool{}}
}

// expect announces that the next answer from path has this status (as a
// sign-in with a wrong key is a 401 page).
func (w *pageWatcher) expect(path string, status int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.expected[path] = status
}

// listen runs in the tab's event loop (chromedp.WithListener), from the
// tab's first event on: it must be quick and must not call the browser.
func (w *pageWatcher) listen(ev any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		w.urls[ev.RequestID] = ev.Request.URL
	case *network.EventResponseReceived:
		if ev.Response.Status < 400 {
			return
		}
		if p := urlPath(ev.Response.URL); w.expected[p] == ev.Response.Status {
			delete(w.expected, p)
			w.excused[ev.RequestID] = true
			return
		}
		w.problems = append(w.problems, fmt.Sprintf("HTTP %d from %s", ev.Response.Status, ev.Response.URL))
	case *network.EventLoadingFailed:
		w.problems = append(w.problems, fmt.Sprintf("request for %s failed: %s (canceled %t, blocked %q)", w.urls[ev.RequestID], ev.ErrorText, ev.Canceled, ev.BlockedReason))
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			var args []string
			for _, a := range ev.Args {
				if len(a.Value) > 0 {
					args = append(args, string(a.Value))
				} else {
					args = append(args, a.Description)
				}
			}
			w.problems = append(w.problems, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			msg += " " + d.Exception.Description
		}
		w.problems = append(w.problems, fmt.Sprintf("uncaught exception at %s:%d: %s", d.URL, d.LineNumber+1, msg))
	case *log.EventEntryAdded:
		if e := ev.Entry; e.Level == log.EntryLevelError && !w.excused[e.NetworkRequestID] {
			w.problems = append(w.problems, fmt.Sprintf("browser log (%s): %s %s", e.Source, e.Text, e.URL))
		}
	}
}

// check fails t with every problem seen since the last check, and any
// expected answer that never came. An event is handled before the reply of
// any later command, so after an action that waited for its page, every
// event of that page is in.
func (w *pageWatcher) check(t *testing.T) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	// One line per distinct problem: a chart with a bad value repeats it
	// for every bar.
	seen := map[string]int{}
	for _, p := range w.problems {
		seen[p]++
	}
	for _, p := range w.problems {
		switch n := seen[p]; {
		case n == 1:
			t.Errorf("in the browser: %s", p)
		case n > 1:
			t.Errorf("in the browser, %d times: %s", n, p)
		}
		seen[p] = 0
	}
	for p, status := range w.expected {
		t.Errorf("in the browser: the expected answer %d from %s never came", status, p)
	}
	w.problems, w.expected = nil, map[string]int64{}
}

func urlPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Path
}
