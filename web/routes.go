package web

import (
	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/flopledger/flopledger/auth"
)

// routes registers every route of the service in one place: JSON under /v1,
// the probes, the metrics and the dashboard. Every /v1 route needs a valid
// API key (authenticate, on the whole group) and the scope named here; the
// only exceptions are listed in open. Every /v1 route must be described in
// openapi.json; TestOpenAPICoversRoutes fails otherwise.
func (s *Server) routes(e *gin.Engine) {
	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	e.GET("/metrics", s.metricsGuard(), gin.WrapH(promhttp.HandlerFor(s.gather, promhttp.HandlerOpts{})))
	s.pages(e) // the dashboard: HTML pages at the root (web/pages.go)

	open := map[string]bool{"GET /v1/openapi.json": true}
	if s.anonymousEstimate {
		open["POST /v1/estimate"], open["POST /v1/estimate/batch"] = true, true
	}
	ingest, read, admin := s.scope(auth.ScopeIngest), s.scope(auth.ScopeRead), s.scope(auth.ScopeAdmin)
	v1 := e.Group("/v1", s.authenticate(open))
	v1.GET("/openapi.json", s.openAPI)

	v1.POST("/estimate", read, s.estimate)
	v1.POST("/estimate/batch", read, s.estimateBatch)
	v1.GET("/models", read, s.listModels)
	v1.GET("/models/:name", read, s.getModel)
	v1.POST("/models", admin, s.registerModel)
	v1.DELETE("/models/:name", admin, s.deleteModel)

	v1.POST("/usage", ingest, s.ingestUsage)
	v1.POST("/import", ingest, s.importUsage)
	v1.GET("/usage/unpriced", read, s.unpricedUsage)

	v1.GET("/plans", read, s.listPlans)
	v1.GET("/plans/:name", read, s.getPlan)
	v1.POST("/plans", admin, s.createPlan)
	v1.POST("/plans/:name/versions", admin, s.addPlanVersion)
	v1.GET("/comparison", read, s.comparison)

	v1.GET("/budgets", read, s.listBudgets)
	v1.GET("/budgets/:workload", read, s.getBudget)
	v1.PUT("/budgets/:workload", admin, s.putBudget)
	v1.DELETE("/budgets/:workload", admin, s.deleteBudget)

	v1.GET("/reports", read, s.listReports)
	v1.GET("/reports/:id", read, s.getReport)
	v1.GET("/reports/:id/deliveries", read, s.reportDeliveries)
	v1.POST("/reports", admin, s.makeReport)
	v1.POST("/reports/:id/send", admin, s.sendReport)
	v1.GET("/channels", read, s.listChannels)
	v1.POST("/channels/:name/test", admin, s.testChannel)

	v1.GET("/alerts", read, s.listAlerts)
	v1.GET("/alerts/:id", read, s.getAlert)
	v1.POST("/alerts/evaluate", admin, s.evaluateAlerts)
	v1.POST("/alerts/:id/ack", read, s.ackAlert)
	v1.POST("/alerts/:id/resolve", read, s.resolveAlert)

	v1.GET("/keys", admin, s.listKeys)
	v1.POST("/keys", admin, s.createKey)
	v1.DELETE("/keys/:id", admin, s.revokeKey)
}
