package web

import (
	_ "embed"
	"net/http"

	"github.com/gin-gonic/gin"
)

// openAPIDoc describes every /v1 route. It is written by hand, kept in the
// repository, and checked against the registered routes by a test.
//
//go:embed openapi.json
var openAPIDoc []byte

func (s *Server) openAPI(c *gin.Context) {
	c.Data(http.StatusOK, "application/json", openAPIDoc)
}
