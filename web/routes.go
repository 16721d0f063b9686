package web

import (
	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// routes registers every route of the service in one place: JSON under /v1,
// the probes and the metrics. Every /v1 route must be described in
// openapi.json; TestOpenAPICoversRoutes fails otherwise.
func (s *Server) routes(e *gin.Engine) {
	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	e.GET("/metrics", gin.WrapH(promhttp.HandlerFor(s.gather, promhttp.HandlerOpts{})))
	s.pages(e) // the dashboard: HTML pages at the root (web/pages.go)

	v1 := e.Group("/v1")
	v1.GET("/openapi.json", s.openAPI)
	v1.POST("/estimate", s.estimate)
	v1.POST("/estimate/batch", s.estimateBatch)
	v1.GET("/models", s.listModels)
	v1.POST("/models", s.registerModel)
	v1.GET("/models/:name", s.getModel)
	v1.DELETE("/models/:name", s.deleteModel)
	v1.POST("/usage", s.ingestUsage)
	v1.GET("/usage/unpriced", s.unpricedUsage)
	v1.POST("/import", s.importUsage)
	v1.GET("/plans", s.listPlans)
	v1.POST("/plans", s.createPlan)
	v1.GET("/plans/:name", s.getPlan)
	v1.POST("/plans/:name/versions", s.addPlanVersion)
	v1.GET("/comparison", s.comparison)
	v1.GET("/budgets", s.listBudgets)
	v1.GET("/budgets/:workload", s.getBudget)
	v1.PUT("/budgets/:workload", s.putBudget)
	v1.DELETE("/budgets/:workload", s.deleteBudget)
	v1.GET("/reports", s.listReports)
	v1.POST("/reports", s.makeReport)
	v1.GET("/reports/:id", s.getReport)
	v1.GET("/reports/:id/deliveries", s.reportDeliveries)
	v1.POST("/reports/:id/send", s.sendReport)
	v1.GET("/alerts", s.listAlerts)
	v1.POST("/alerts/evaluate", s.evaluateAlerts)
	v1.GET("/alerts/:id", s.getAlert)
	v1.POST("/alerts/:id/ack", s.ackAlert)
	v1.POST("/alerts/:id/resolve", s.resolveAlert)
	v1.GET("/channels", s.listChannels)
	v1.POST("/channels/:name/test", s.testChannel)
}
