package web

import (
	"context"
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/flopledger/flopledger/auth"
)

// Keys manages API keys (auth.Service).
type Keys interface {
	Create(ctx context.Context, in auth.CreateInput) (auth.Key, string, error)
	List(ctx context.Context) ([]auth.Key, error)
	Revoke(ctx context.Context, id string) error
}

// createKey answers {"id", "key", …}: the key is shown this once.
func (s *Server) createKey(c *gin.Context) {
	var in auth.CreateInput
	if err := s.bindJSON(c, &in); err != nil {
		s.fail(c, err)
		return
	}
	k, secret, err := s.keys.Create(c.Request.Context(), in)
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusCreated, gin.H{"id": k.ID, "key": secret, "name": k.Name, "scopes": k.Scopes, "created_at": k.CreatedAt})
}

func (s *Server) listKeys(c *gin.Context) {
	list, err := s.keys.List(c.Request.Context())
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"keys": list})
}

func (s *Server) revokeKey(c *gin.Context) {
	err := s.keys.Revoke(c.Request.Context(), c.Param("id"))
	if errors.Is(err, auth.ErrNotFound) {
		s.fail(c, &Error{Status: http.StatusNotFound, Code: "key_not_found", Message: "no key " + c.Param("id")})
		return
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

// metricsGuard protects /metrics with its own bearer token when one is
// configured (Prometheus scrapers send it with bearer_token); open otherwise.
func (s *Server) metricsGuard() gin.HandlerFunc {
	return func(c *gin.Context) {
		if s.metricsToken != "" && c.GetHeader("Authorization") != "Bearer "+s.metricsToken {
			s.fail(c, &Error{Status: http.StatusUnauthorized, Code: "unauthorized", Message: "GET /metrics needs Authorization: Bearer <FLOPLEDGER_METRICS_TOKEN>"})
			return
		}
		c.Next()
	}
}
