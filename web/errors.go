package web

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"
)

// Error is the one error body of the API:
// {"error": {"code", "message", "details"}}. Details name the field or
// record at fault, when there is one.
type Error struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Details any    `json:"details,omitempty"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// fail renders err in the API's error shape. An *Error keeps its status; any
// other error is a 500, logged with its request, and the client sees only a
// generic message with the request id to quote.
func (s *Server) fail(c *gin.Context, err error) {
	var e *Error
	if !errors.As(err, &e) {
		id := c.GetString(ctxRequestID)
		s.log.Error("request failed", slog.String("request_id", id),
			slog.String("method", c.Request.Method), slog.String("path", c.Request.URL.Path), slog.Any("error", err))
		e = &Error{Status: http.StatusInternalServerError, Code: "internal",
			Message: "internal error; quote request id " + id + " when you report it"}
	}
	c.AbortWithStatusJSON(e.Status, gin.H{"error": e})
}
