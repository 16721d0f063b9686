package web

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/estimator"
	"github.com/flopledger/flopledger/report"
)

// comparison answers GET /v1/comparison?from=YYYY-MM-DD&to=YYYY-MM-DD
// &request_plan=…&flops_plan=…&group_by=workload|model|tag:NAME over the
// days [from, to). The plans default to the configured ones.
func (s *Server) comparison(c *gin.Context) {
	q := report.Query{
		RequestPlan: c.DefaultQuery("request_plan", s.defaultRequestPlan),
		FLOPsPlan:   c.DefaultQuery("flops_plan", s.defaultFLOPsPlan),
		GroupBy:     c.Query("group_by"),
	}
	var ps []estimator.Problem
	for _, d := range []struct {
		name string
		dst  *billing.Date
	}{{"from", &q.From}, {"to", &q.To}} {
		if v := c.Query(d.name); v != "" {
			day, err := billing.ParseDate(v)
			if err != nil {
				ps = append(ps, estimator.Problem{Field: d.name, Message: err.Error()})
			}
			*d.dst = day
		}
	}
	if len(ps) > 0 {
		s.fail(c, invalid(ps...))
		return
	}
	res, err := s.reports.Compare(c.Request.Context(), q)
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, res)
}
