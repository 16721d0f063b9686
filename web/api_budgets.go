package web

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/flopledger/flopledger/budget"
	"github.com/flopledger/flopledger/estimator"
)

// Budgets keeps budgets and their status (budget.Service).
type Budgets interface {
	Put(ctx context.Context, workload string, in budget.Input) (budget.Budget, error)
	Delete(ctx context.Context, workload, month string) error
	StatusesFor(ctx context.Context, m budget.Month, now time.Time) ([]budget.Status, error)
}

// budgetMonth reads ?month=YYYY-MM, defaulting to the current month.
func (s *Server) budgetMonth(c *gin.Context) (budget.Month, error) {
	if v := c.Query("month"); v != "" {
		m, err := budget.ParseMonth(v)
		if err != nil {
			return budget.Month{}, invalid(estimator.Problem{Field: "month", Message: err.Error()})
		}
		return m, nil
	}
	return budget.MonthOf(s.now()), nil
}

func (s *Server) listBudgets(c *gin.Context) {
	m, err := s.budgetMonth(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	st, err := s.budgets.StatusesFor(c.Request.Context(), m, s.now())
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"month": m, "budgets": st})
}

func (s *Server) getBudget(c *gin.Context) {
	m, err := s.budgetMonth(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	st, err := s.budgets.StatusesFor(c.Request.Context(), m, s.now())
	if err != nil {
		s.fail(c, err)
		return
	}
	for _, b := range st {
		if b.Workload == c.Param("workload") {
			c.JSON(http.StatusOK, b)
			return
		}
	}
	s.fail(c, &Error{Status: http.StatusNotFound, Code: "budget_not_found", Message: "no budget for workload " + c.Param("workload") + " in " + m.String()})
}

func (s *Server) putBudget(c *gin.Context) {
	var in budget.Input
	if err := s.bindJSON(c, &in); err != nil {
		s.fail(c, err)
		return
	}
	if _, err := s.budgets.Put(c.Request.Context(), c.Param("workload"), in); err != nil {
		s.fail(c, err)
		return
	}
	s.getBudget(c)
}

func (s *Server) deleteBudget(c *gin.Context) {
	err := s.budgets.Delete(c.Request.Context(), c.Param("workload"), c.Query("month"))
	if errors.Is(err, budget.ErrNotFound) {
		s.fail(c, &Error{Status: http.StatusNotFound, Code: "budget_not_found", Message: err.Error()})
		return
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}
