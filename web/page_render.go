package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"path"
	"runtime/debug"
	"strings"
	"sync"
	"text/template/parse"

	"github.com/gin-gonic/gin"

	"github.com/flopledger/flopledger/estimator"
)

// pageFiles holds the dashboard's templates and static assets, embedded in
// the binary: nothing is read from disk or from a CDN at run time.
//
//go:embed templates/*.html static/*
var pageFiles embed.FS

// pageViews are the page templates pages() needs; each defines "content".
var pageViews = []string{"overview.html", "workload.html", "compare.html", "alerts.html", "reports.html", "estimate.html", "models.html", "error.html"}

// dashboard renders the HTML pages. It is built once, by pages(), from
// parsed templates and hashed assets; a broken template stops the start.
type dashboard struct {
	s *Server
	// views maps a page's template file ("overview.html") to the layout
	// and partials with that page's "content" block.
	views map[string]*template.Template
	// assets maps a hashed URL name ("app.3f9a0c1d2e4b.css") to its file,
	// and assetURL a file name ("app.css") to its URL.
	assets   map[string]asset
	assetURL map[string]string
}

type asset struct {
	body        []byte
	contentType string
}

// mustDashboard is newDashboard over the embedded files; it panics on a
// broken template, which New (and so the start) does not survive.
func mustDashboard(s *Server) *dashboard {
	d, err := newDashboard(s, pageFiles)
	if err != nil {
		panic("web: dashboard: " + err.Error())
	}
	return d
}

// newDashboard hashes the assets under static/ and parses every page
// under templates/ with the layout (layout.html) and the shared blocks
// (partials.html).
func newDashboard(s *Server, files fs.FS) (*dashboard, error) {
	d := &dashboard{s: s, views: map[string]*template.Template{}, assets: map[string]asset{}, assetURL: map[string]string{}}
	statics, err := fs.Glob(files, "static/*")
	if err != nil {
		return nil, err
	}
	for _, name := range statics {
		body, err := fs.ReadFile(files, name)
		if err != nil {
			return nil, err
		}
		base := path.Base(name)
		ext := path.Ext(base)
		sum := sha256.Sum256(body)
		hashed := strings.TrimSuffix(base, ext) + "." + hex.EncodeToString(sum[:6]) + ext
		ct := mime.TypeByExtension(ext)
		if ct == "" {
			ct = "application/octet-stream"
		}
		d.assets[hashed] = asset{body: body, contentType: ct}
		d.assetURL[base] = "/static/" + hashed
	}
	funcs := pageFuncs()
	funcs["asset"] = func(name string) (string, error) {
		u, ok := d.assetURL[name]
		if !ok {
			return "", fmt.Errorf("no static asset %q", name)
		}
		return u, nil
	}
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/partials.html")
	if err != nil {
		return nil, err
	}
	pages, err := fs.Glob(files, "templates/*.html")
	if err != nil {
		return nil, err
	}
	for _, p := range pages {
		name := path.Base(p)
		if name == "layout.html" || name == "partials.html" {
			continue
		}
		t, err := template.Must(base.Clone()).ParseFS(files, p)
		if err != nil {
			return nil, err
		}
		if t.Lookup("content") == nil {
			return nil, fmt.Errorf("template %s defines no \"content\" block", name)
		}
		d.views[name] = t
	}
	for _, required := range pageViews {
		if d.views[required] == nil {
			return nil, fmt.Errorf("template %s is missing", required)
		}
	}
	// html/template escapes a template at its first execution: do it now,
	// so that an escaping error (an attribute left open, say) stops the
	// start too. Executing without data fails further on, harmlessly.
	for name, t := range d.views {
		var escErr *template.Error
		if err := t.ExecuteTemplate(io.Discard, "layout", nil); errors.As(err, &escErr) {
			return nil, fmt.Errorf("template %s: %w", name, err)
		}
	}
	// Every asset the templates name must exist: a missing one would
	// otherwise fail the first request that renders it.
	for name, t := range d.views {
		for _, tt := range t.Templates() {
			if tt.Tree == nil {
				continue
			}
			if err := checkAssets(tt.Tree.Root, d.assetURL); err != nil {
				return nil, fmt.Errorf("template %s: %w", name, err)
			}
		}
	}
	return d, nil
}

// checkAssets walks a parse tree for {{asset "NAME"}} and reports a name
// that is not under static/.
func checkAssets(n parse.Node, known map[string]string) error {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return nil
		}
		for _, c := range n.Nodes {
			if err := checkAssets(c, known); err != nil {
				return err
			}
		}
	case *parse.ActionNode:
		return checkAssets(n.Pipe, known)
	case *parse.PipeNode:
		if n == nil {
			return nil
		}
		for _, c := range n.Cmds {
			if len(c.Args) == 2 {
				id, ok1 := c.Args[0].(*parse.IdentifierNode)
				str, ok2 := c.Args[1].(*parse.StringNode)
				if ok1 && ok2 && id.Ident == "asset" {
					if _, ok := known[str.Text]; !ok {
						return fmt.Errorf("no static asset %q", str.Text)
					}
				}
			}
		}
	case *parse.IfNode:
		return errors.Join(checkAssets(n.Pipe, known), checkAssets(n.List, known), checkAssets(n.ElseList, known))
	case *parse.RangeNode:
		return errors.Join(checkAssets(n.Pipe, known), checkAssets(n.List, known), checkAssets(n.ElseList, known))
	case *parse.WithNode:
		return errors.Join(checkAssets(n.Pipe, known), checkAssets(n.List, known), checkAssets(n.ElseList, known))
	}
	return nil
}

// static serves a hashed asset. Its name changes with its content, so it
// may be cached for good.
func (d *dashboard) static(c *gin.Context) {
	a, ok := d.assets[c.Param("file")]
	if !ok {
		c.Data(http.StatusNotFound, "text/plain; charset=utf-8", []byte("no such asset\n"))
		return
	}
	c.Header("Cache-Control", "public, max-age=31536000, immutable")
	c.Header("X-Content-Type-Options", "nosniff")
	c.Data(http.StatusOK, a.contentType, a.body)
}

// pageMiddleware sets the headers of every page (no caching of figures
// that change, and a content security policy that allows only our own
// stylesheet: the pages run no script at all), and turns a panic in a page
// into the HTML error page, logged like any 500.
func (d *dashboard) pageMiddleware(c *gin.Context) {
	defer func() {
		if r := recover(); r != nil {
			if r == http.ErrAbortHandler {
				panic(r)
			}
			d.fail(c, fmt.Errorf("panic: %v\n%s", r, debug.Stack()))
		}
	}()
	h := c.Writer.Header()
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	c.Next()
}

// page is what the layout needs: the title, the current section of the
// navigation, and messages for the top of the page.
type page struct {
	Title   string
	Section string
	Version string
	// Flash is a confirmation after a redirect ("Alert 3 acknowledged").
	Flash string
	// Errors are problems with the input, shown at the top of the page
	// (and next to their field where the page has one).
	Errors []string
	// CSRF is the session's token, which every POST form carries.
	CSRF string
	// SignedIn names the key of the session ("" when signed out).
	SignedIn string
}

type navItem struct {
	Href, Label string
	Current     bool
}

// Nav lists the sections of the top navigation.
func (p page) Nav() []navItem {
	items := []navItem{
		{"/", "Overview", false}, {"/compare", "Compare", false}, {"/alerts", "Alerts", false},
		{"/reports", "Reports", false}, {"/estimate", "Estimator", false}, {"/models", "Models & plans", false},
	}
	for i := range items {
		items[i].Current = items[i].Href == p.Section
	}
	return items
}

func (d *dashboard) page(title, section string) page {
	return page{Title: title, Section: section, Version: d.s.version}
}

// render executes a page into a buffer first, so that a failure half-way
// through never sends half a page: it becomes the error page instead.
func (d *dashboard) render(c *gin.Context, status int, view string, data any) {
	t := d.views[view]
	if t == nil {
		d.fail(c, fmt.Errorf("web: no page template %q", view))
		return
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", data); err != nil {
		if view == "error.html" {
			c.Data(http.StatusInternalServerError, "text/plain; charset=utf-8", []byte("internal error\n"))
			return
		}
		d.fail(c, fmt.Errorf("web: render %s: %w", view, err))
		return
	}
	c.Data(status, "text/html; charset=utf-8", buf.Bytes())
}

// errorView is the HTML error page.
type errorView struct {
	page
	Status  int
	Message string
	Details []string
}

// fail renders err as the HTML error page, with the status the API would
// give it: a domain error keeps its status and message, an unreachable
// database is a 503, anything else a 500 that is logged with its request
// while the reader sees only the request id to quote.
func (d *dashboard) fail(c *gin.Context, err error) {
	e := domainError(err)
	if e == nil && d.s.unavailable != nil && d.s.unavailable(err) {
		c.Header("Retry-After", "5")
		e = &Error{Status: http.StatusServiceUnavailable, Code: "unavailable", Message: "The database is unavailable; reload the page in a few seconds."}
	}
	if e == nil {
		id := c.GetString(ctxRequestID)
		if !errors.Is(err, context.Canceled) {
			d.s.log.Error("page failed", slog.String("request_id", id),
				slog.String("method", c.Request.Method), slog.String("path", c.Request.URL.Path), slog.Any("error", err))
		}
		e = &Error{Status: http.StatusInternalServerError, Code: "internal",
			Message: "Something went wrong on our side. Quote request id " + id + " when you report it."}
	}
	d.failWith(c, e.Status, e.Message)
}

// failWith renders the error page with a status and a message.
func (d *dashboard) failWith(c *gin.Context, status int, msg string) {
	v := errorView{page: d.pageFor(c, http.StatusText(status), ""), Status: status, Message: msg}
	c.Abort()
	d.render(c, status, "error.html", v)
}

// validationProblems reads the problems of invalid input (a 400 or 422
// of the API); ok is false for any other error.
func validationProblems(err error) ([]estimator.Problem, bool) {
	e := domainError(err)
	if e == nil || (e.Status != http.StatusUnprocessableEntity && e.Status != http.StatusBadRequest) {
		return nil, false
	}
	if ps, ok := e.Details.([]estimator.Problem); ok && len(ps) > 0 {
		return ps, true
	}
	return []estimator.Problem{{Message: e.Message}}, true
}

// problemText writes a problem for the summary at the top of a page.
func problemText(p estimator.Problem) string {
	return strings.TrimPrefix(p.Field+": "+p.Message, ": ")
}

// problems is validationProblems as messages, and by field ("" for the
// form as a whole), for a form to show next to its controls.
func problems(err error) (map[string]string, []string, bool) {
	ps, ok := validationProblems(err)
	if !ok {
		return nil, nil, false
	}
	byField := map[string]string{}
	var all []string
	for _, p := range ps {
		all = append(all, problemText(p))
		if prev, ok := byField[p.Field]; ok {
			byField[p.Field] = prev + "; " + p.Message
		} else {
			byField[p.Field] = p.Message
		}
	}
	return byField, all, true
}

// gather runs the reads of a page at once (each is one query over the
// rollups or a small table) and returns the first error.
func gather(ctx context.Context, fns ...func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Go(func() {
			// A panic here is on a goroutine of our own, out of reach of
			// the page's recovery: turn it into the page's error, or it
			// would take the whole process down.
			defer func() {
				if r := recover(); r != nil {
					errs[i] = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
					cancel()
				}
			}()
			if errs[i] = fn(ctx); errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	return errors.Join(errs...)
}
