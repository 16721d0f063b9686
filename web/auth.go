package web

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/time/rate"

	"github.com/flopledger/flopledger/auth"
)

// Authenticator checks API keys and dashboard sessions (auth.Service).
type Authenticator interface {
	Check(ctx context.Context, secret string) (auth.Key, error)
	Session(ctx context.Context, token string) (auth.Key, string, error)
}

const (
	ctxKey = "api_key"
	// SessionCookie holds a dashboard session token.
	SessionCookie = "flopledger_session"
)

// authenticate runs on every /v1 route: it finds the caller's key (a Bearer
// token, or on safe methods the dashboard's session cookie, so that its
// links to CSV and HTML downloads work) and refuses a request without a
// valid one — unless the route was declared open. Routes are thus protected
// by default; scope() then narrows them.
func (s *Server) authenticate(open map[string]bool) gin.HandlerFunc {
	return func(c *gin.Context) {
		if s.auth == nil {
			c.Next() // tests of other features may run without keys
			return
		}
		secret, found := strings.CutPrefix(c.GetHeader("Authorization"), "Bearer ")
		var k auth.Key
		var err error
		switch {
		case found:
			k, err = s.auth.Check(c.Request.Context(), strings.TrimSpace(secret))
		case c.Request.Method == http.MethodGet || c.Request.Method == http.MethodHead:
			token, _ := c.Cookie(SessionCookie)
			k, _, err = s.auth.Session(c.Request.Context(), token)
			if errors.Is(err, auth.ErrNoSession) {
				err = auth.ErrNoKey
			}
		default:
			err = auth.ErrNoKey
		}
		if err != nil {
			if open[c.Request.Method+" "+c.FullPath()] && errors.Is(err, auth.ErrNoKey) {
				c.Next()
				return
			}
			if errors.Is(err, auth.ErrNoKey) || errors.Is(err, auth.ErrBadKey) {
				c.Header("WWW-Authenticate", `Bearer realm="flopledger"`)
				s.fail(c, &Error{Status: http.StatusUnauthorized, Code: "unauthorized", Message: err.Error()})
				return
			}
			s.fail(c, err)
			return
		}
		if !s.limiter.allow(k.ID) {
			c.Header("Retry-After", fmt.Sprint(int(math.Ceil(s.limiter.retryAfter().Seconds()))))
			s.fail(c, &Error{Status: http.StatusTooManyRequests, Code: "rate_limited",
				Message: fmt.Sprintf("more than %g requests per second with this key; retry after the Retry-After seconds", s.limiter.rps)})
			return
		}
		c.Set(ctxKey, k)
		c.Next()
	}
}

// scope lets a request through only when its key has the scope.
func (s *Server) scope(scope string) gin.HandlerFunc {
	return func(c *gin.Context) {
		if s.auth == nil {
			c.Next()
			return
		}
		v, ok := c.Get(ctxKey)
		if !ok { // an open route without a key: only the open routes reach here
			c.Next()
			return
		}
		if k := v.(auth.Key); !k.Allows(scope) {
			s.fail(c, &Error{Status: http.StatusForbidden, Code: "forbidden",
				Message: fmt.Sprintf("this key (%s) lacks the %q scope this route needs", k.Name, scope)})
			return
		}
		c.Next()
	}
}

// keyLimiter is a token bucket per key.
type keyLimiter struct {
	rps   float64
	burst int
	mu    sync.Mutex
	byKey map[string]*rate.Limiter
}

func newKeyLimiter(rps float64, burst int) *keyLimiter {
	return &keyLimiter{rps: rps, burst: burst, byKey: map[string]*rate.Limiter{}}
}

func (l *keyLimiter) allow(key string) bool {
	if l == nil || l.rps <= 0 {
		return true
	}
	l.mu.Lock()
	lim, ok := l.byKey[key]
	if !ok {
		lim = rate.NewLimiter(rate.Limit(l.rps), l.burst)
		l.byKey[key] = lim
	}
	l.mu.Unlock()
	return lim.Allow()
}

func (l *keyLimiter) retryAfter() time.Duration {
	return max(time.Second, time.Duration(float64(time.Second)/l.rps))
}
