package web

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/estimator"
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
	e := domainError(err)
	if e == nil && errors.Is(err, context.DeadlineExceeded) && errors.Is(c.Request.Context().Err(), context.DeadlineExceeded) {
		e = &Error{Status: http.StatusServiceUnavailable, Code: "timeout",
			Message: "the request took longer than FLOPLEDGER_REQUEST_TIMEOUT"}
	}
	if e == nil && s.unavailable != nil && s.unavailable(err) {
		s.log.Warn("database unavailable", slog.String("request_id", c.GetString(ctxRequestID)), slog.Any("error", err))
		c.Header("Retry-After", "5")
		e = &Error{Status: http.StatusServiceUnavailable, Code: "unavailable",
			Message: "the database is unavailable; retry in a few seconds (a retried batch stores nothing twice)"}
	}
	if e == nil {
		id := c.GetString(ctxRequestID)
		s.log.Error("request failed", slog.String("request_id", id),
			slog.String("method", c.Request.Method), slog.String("path", c.Request.URL.Path), slog.Any("error", err))
		e = &Error{Status: http.StatusInternalServerError, Code: "internal",
			Message: "internal error; quote request id " + id + " when you report it"}
	}
	c.AbortWithStatusJSON(e.Status, gin.H{"error": e})
}

// domainError maps the errors of the domain packages to API errors; nil
// means an unexpected failure (a 500).
func domainError(err error) *Error {
	var e *Error
	var ve estimator.ValidationError
	var nf *catalog.NotFoundError
	var be billing.ValidationError
	switch {
	case errors.As(err, &e):
		return e
	case errors.As(err, &ve):
		return invalid(ve.Problems...)
	case errors.As(err, &be):
		ps := make([]estimator.Problem, len(be.Problems))
		for i, p := range be.Problems {
			ps[i] = estimator.Problem{Field: p.Field, Message: p.Message}
		}
		return invalid(ps...)
	case errors.Is(err, billing.ErrPlanNotFound):
		return &Error{Status: http.StatusNotFound, Code: "plan_not_found", Message: err.Error()}
	case errors.Is(err, billing.ErrPlanExists):
		return &Error{Status: http.StatusConflict, Code: "plan_exists", Message: err.Error()}
	case errors.Is(err, billing.ErrKind):
		return &Error{Status: http.StatusConflict, Code: "plan_kind", Message: err.Error()}
	case errors.As(err, &nf):
		return &Error{Status: http.StatusNotFound, Code: "model_not_found", Message: nf.Error(),
			Details: gin.H{"model": nf.Name, "suggestions": nonNil(nf.Suggestions)}}
	case errors.Is(err, catalog.ErrBuiltin):
		return &Error{Status: http.StatusConflict, Code: "builtin_model", Message: err.Error()}
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
