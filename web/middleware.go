package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/gin-gonic/gin"
)

const ctxRequestID = "request_id"

// requestID gives every request an id, echoed in X-Request-ID and in the
// logs. A well-formed id sent by the client (or a proxy in front) is kept so
// that one request can be followed across services; anything else is replaced.
// Ten lines of our own rather than a dependency.
func requestID() gin.HandlerFunc {
	return func(c *gin.Context) {
		id := c.GetHeader("X-Request-ID")
		if !validRequestID(id) {
			var b [12]byte
			_, _ = rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		c.Set(ctxRequestID, id)
		c.Header("X-Request-ID", id)
		c.Next()
	}
}

func validRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, r := range id {
		ok := r == '-' || r == '_' || r == '.' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !ok {
			return false
		}
	}
	return true
}

// accessLog writes one structured line per request once it has finished.
func (s *Server) accessLog() gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		level := slog.LevelInfo
		if c.Writer.Status() >= 500 {
			level = slog.LevelError
		}
		s.log.LogAttrs(c.Request.Context(), level, "http request",
			slog.String("request_id", c.GetString(ctxRequestID)),
			slog.String("method", c.Request.Method),
			slog.String("route", routeLabel(c)),
			slog.String("path", c.Request.URL.Path),
			slog.Int("status", c.Writer.Status()),
			slog.Int("bytes", c.Writer.Size()),
			slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
			slog.String("client_ip", c.ClientIP()),
		)
	}
}

// deadline cancels the request's context after d. Every slow step of a
// request (the database, a delivery) honours its context, so the request
// ends with the 503 "timeout" that fail renders. This replaces
// http.TimeoutHandler, which ran every request on a goroutine of its own
// and buffered its answer: with a fresh stack to grow through the handler
// chain, that cost a tenth of the estimate API's CPU.
func deadline(d time.Duration) gin.HandlerFunc {
	return func(c *gin.Context) {
		ctx, cancel := context.WithTimeout(c.Request.Context(), d)
		defer cancel()
		c.Request = c.Request.WithContext(ctx)
		c.Next()
	}
}

// recovery turns a panic into a logged 500 in the API's error shape, so that
// one bad request never takes the process down. http.ErrAbortHandler is
// re-raised: net/http uses it on purpose to abort a response.
func (s *Server) recovery() gin.HandlerFunc {
	return func(c *gin.Context) {
		defer func() {
			rec := recover()
			if rec == nil {
				return
			}
			if err, ok := rec.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				panic(rec)
			}
			s.log.Error("panic in handler", slog.String("request_id", c.GetString(ctxRequestID)),
				slog.Any("panic", rec), slog.String("stack", string(debug.Stack())))
			if !c.Writer.Written() {
				s.fail(c, errors.New("panic"))
			}
			c.Abort()
		}()
		c.Next()
	}
}

// routeLabel is the route pattern (e.g. /v1/models/:name), never the raw
// path: raw paths would give metrics one series per URL.
func routeLabel(c *gin.Context) string {
	if r := c.FullPath(); r != "" {
		return r
	}
	return "unmatched"
}
