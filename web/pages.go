package web

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
)

// pages registers the dashboard's HTML pages and its static assets. The
// templates are parsed and the assets hashed here, once: a broken template
// panics in New, so that it stops the start and never fails a request.
//
// Every page reads only the daily rollups and the small tables (plans,
// budgets, alerts, reports, histograms), never the raw records, so that a
// page costs the same with ten records or ten million.
func (s *Server) pages(e *gin.Engine) {
	d := mustDashboard(s)
	e.GET("/static/:file", d.static)
	// An unknown path outside the API is a page a reader mistyped: answer
	// with the HTML error page; under /v1 it stays the JSON error.
	e.NoRoute(func(c *gin.Context) {
		if strings.HasPrefix(c.Request.URL.Path, "/v1/") || c.Request.URL.Path == "/v1" {
			s.fail(c, &Error{Status: http.StatusNotFound, Code: "not_found", Message: "no route for " + c.Request.Method + " " + c.Request.URL.Path})
			return
		}
		d.pageMiddleware(c)
		d.failWith(c, http.StatusNotFound, "There is no page at "+c.Request.URL.Path+".")
	})

	e.GET("/signin", d.pageMiddleware, d.signinForm)
	e.POST("/signin", d.pageMiddleware, d.signin)
	e.POST("/signout", d.pageMiddleware, d.signout)

	// Every page needs a session (requireSession: a sign-in with a key of
	// the read scope), and every POST form its CSRF token; the forms that
	// change plans, models or reports need the admin scope.
	p := e.Group("", d.pageMiddleware, d.requireSession)
	admin := d.requireAdmin
	p.GET("/", d.overview)
	p.GET("/workloads/*name", d.workload)
	p.GET("/compare", d.compare)
	p.GET("/alerts", d.alertList)
	p.POST("/alerts/:id/ack", d.alertAck)
	p.POST("/alerts/:id/resolve", d.alertResolve)
	p.GET("/reports", d.reportList)
	p.POST("/reports", admin, d.reportMake)
	p.GET("/estimate", d.estimateForm)
	p.POST("/estimate", d.estimatePost)
	p.GET("/models", d.modelList)
	p.POST("/models", admin, d.modelRegister)
}
