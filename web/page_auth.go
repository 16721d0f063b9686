package web

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/flopledger/flopledger/auth"
)

// SessionStarter opens and ends dashboard sessions (auth.Service).
type SessionStarter interface {
	SignIn(ctx context.Context, secret string) (token, csrf string, k auth.Key, err error)
	SignOut(ctx context.Context, token string) error
}

const ctxCSRF = "csrf"

type signinView struct {
	page
	Next string
}

// safeNext keeps a redirect target on this site: a path, never "//host".
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return "/"
	}
	return next
}

func (d *dashboard) signinForm(c *gin.Context) {
	v := signinView{page: d.pageFor(c, "Sign in", ""), Next: safeNext(c.Query("next"))}
	d.render(c, http.StatusOK, "signin.html", v)
}

// signin checks the key and sets the session cookie: HttpOnly (no script
// may read it), SameSite=Strict (no other site's form or link carries it),
// Secure when the dashboard is served over TLS.
func (d *dashboard) signin(c *gin.Context) {
	next := safeNext(c.PostForm("next"))
	token, _, _, err := d.s.sessions.SignIn(c.Request.Context(), strings.TrimSpace(c.PostForm("key")))
	if errors.Is(err, auth.ErrNoKey) || errors.Is(err, auth.ErrBadKey) {
		v := signinView{page: d.pageFor(c, "Sign in", ""), Next: next}
		v.Errors = []string{"That key is not valid: it is unknown or was revoked."}
		d.render(c, http.StatusUnauthorized, "signin.html", v)
		return
	}
	if err != nil {
		d.fail(c, err)
		return
	}
	http.SetCookie(c.Writer, &http.Cookie{Name: SessionCookie, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: secureRequest(c), Expires: time.Now().Add(auth.SessionTTL)})
	c.Redirect(http.StatusSeeOther, next)
}

func (d *dashboard) signout(c *gin.Context) {
	if token, err := c.Cookie(SessionCookie); err == nil {
		_ = d.s.sessions.SignOut(c.Request.Context(), token)
	}
	http.SetCookie(c.Writer, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: secureRequest(c)})
	c.Redirect(http.StatusSeeOther, "/signin")
}

// secureRequest says whether the browser reached us over TLS (directly or
// through a proxy that says so).
func secureRequest(c *gin.Context) bool {
	return c.Request.TLS != nil || strings.EqualFold(c.GetHeader("X-Forwarded-Proto"), "https")
}

// requireSession lets a page through only with a valid session whose key
// has the read scope; without one it sends the reader to the sign-in form
// and back. On a POST it also checks the form's CSRF token against the
// session's (the SameSite cookie already stops other sites; the token is
// the second lock). With no authenticator configured (tests of the pages
// alone) it lets everything through.
func (d *dashboard) requireSession(c *gin.Context) {
	if d.s.auth == nil {
		c.Next()
		return
	}
	token, _ := c.Cookie(SessionCookie)
	k, csrf, err := d.s.auth.Session(c.Request.Context(), token)
	if errors.Is(err, auth.ErrNoSession) {
		target := "/signin?next=" + url.QueryEscape(c.Request.URL.RequestURI())
		c.Redirect(http.StatusSeeOther, target)
		c.Abort()
		return
	}
	if err != nil {
		d.fail(c, err)
		c.Abort()
		return
	}
	if !k.Allows(auth.ScopeRead) {
		d.failWith(c, http.StatusForbidden, "This key cannot read the dashboard: it needs the read or admin scope.")
		c.Abort()
		return
	}
	// The estimator's POST only computes (it is POST for long prompts), so
	// it carries no token: a token in its GET twin would land in URLs.
	if c.Request.Method == http.MethodPost && c.FullPath() != "/estimate" && subtle.ConstantTimeCompare([]byte(c.PostForm("csrf")), []byte(csrf)) != 1 {
		d.failWith(c, http.StatusForbidden, "This form has expired or did not come from this dashboard. Reload the page and try again.")
		c.Abort()
		return
	}
	c.Set(ctxKey, k)
	c.Set(ctxCSRF, csrf)
	c.Next()
}

// requireAdmin guards the forms that change plans, models and reports.
func (d *dashboard) requireAdmin(c *gin.Context) {
	if v, ok := c.Get(ctxKey); ok && !v.(auth.Key).Allows(auth.ScopeAdmin) {
		d.failWith(c, http.StatusForbidden, "This needs a key with the admin scope.")
		c.Abort()
		return
	}
	c.Next()
}

// pageFor is page() with what the layout needs from the request: the CSRF
// token the forms carry and whether someone is signed in.
func (d *dashboard) pageFor(c *gin.Context, title, section string) page {
	p := d.page(title, section)
	p.CSRF = c.GetString(ctxCSRF)
	if v, ok := c.Get(ctxKey); ok {
		p.SignedIn = v.(auth.Key).Name
	}
	return p
}
