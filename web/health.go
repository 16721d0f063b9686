package web

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
)

// healthz says the process is alive and serving; it checks nothing else, so
// that an orchestrator does not restart us for a database outage.
func (s *Server) healthz(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"status": "ok", "version": s.version})
}

// readyz says whether we can do useful work: the database answers and its
// schema is current. 503 with the reason otherwise.
func (s *Server) readyz(c *gin.Context) {
	if s.ready == nil {
		c.JSON(http.StatusOK, gin.H{"status": "ready"})
		return
	}
	ctx, cancel := context.WithTimeout(c.Request.Context(), 3*time.Second)
	defer cancel()
	if err := s.ready.Ready(ctx); err != nil {
		s.fail(c, &Error{Status: http.StatusServiceUnavailable, Code: "not_ready", Message: err.Error()})
		return
	}
	c.JSON(http.StatusOK, gin.H{"status": "ready"})
}
