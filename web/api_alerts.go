package web

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/flopledger/flopledger/alert"
)

// Alerts lists, evaluates and moves alerts (cmd wires alert.Service with
// the budgets and the notifier behind Evaluate).
type Alerts interface {
	List(ctx context.Context, state, workload string) ([]alert.Alert, error)
	Get(ctx context.Context, id int64) (alert.Alert, error)
	Acknowledge(ctx context.Context, id int64, now time.Time) (alert.Alert, error)
	Resolve(ctx context.Context, id int64, now time.Time) (alert.Alert, error)
	Evaluate(ctx context.Context, now time.Time) ([]alert.Alert, error)
}

func (s *Server) listAlerts(c *gin.Context) {
	list, err := s.alerts.List(c.Request.Context(), c.Query("state"), c.Query("workload"))
	if err != nil {
		s.fail(c, err)
		return
	}
	if list == nil {
		list = []alert.Alert{}
	}
	c.JSON(http.StatusOK, gin.H{"alerts": list})
}

func (s *Server) alertID(c *gin.Context) (int64, bool) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		s.fail(c, &Error{Status: http.StatusNotFound, Code: "alert_not_found", Message: "no alert " + c.Param("id")})
		return 0, false
	}
	return id, true
}

func (s *Server) getAlert(c *gin.Context) {
	if id, ok := s.alertID(c); ok {
		s.answerAlert(c)(s.alerts.Get(c.Request.Context(), id))
	}
}

func (s *Server) ackAlert(c *gin.Context) {
	if id, ok := s.alertID(c); ok {
		s.answerAlert(c)(s.alerts.Acknowledge(c.Request.Context(), id, s.now()))
	}
}

func (s *Server) resolveAlert(c *gin.Context) {
	if id, ok := s.alertID(c); ok {
		s.answerAlert(c)(s.alerts.Resolve(c.Request.Context(), id, s.now()))
	}
}

func (s *Server) answerAlert(c *gin.Context) func(alert.Alert, error) {
	return func(a alert.Alert, err error) {
		switch {
		case errors.Is(err, alert.ErrNotFound):
			s.fail(c, &Error{Status: http.StatusNotFound, Code: "alert_not_found", Message: err.Error()})
		case errors.Is(err, alert.ErrState):
			s.fail(c, &Error{Status: http.StatusConflict, Code: "alert_state", Message: err.Error()})
		case err != nil:
			s.fail(c, err)
		default:
			c.JSON(http.StatusOK, a)
		}
	}
}

// evaluateAlerts runs the evaluation now and answers with the alerts it
// opened (they are also delivered).
func (s *Server) evaluateAlerts(c *gin.Context) {
	opened, err := s.alerts.Evaluate(c.Request.Context(), s.now())
	if err != nil {
		s.fail(c, err)
		return
	}
	if opened == nil {
		opened = []alert.Alert{}
	}
	c.JSON(http.StatusOK, gin.H{"opened": opened})
}
