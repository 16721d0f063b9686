package web

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/flopledger/flopledger/catalog"
)

func (s *Server) listModels(c *gin.Context) {
	list, err := s.models.List(c.Request.Context())
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"models": list})
}

func (s *Server) getModel(c *gin.Context) {
	m, err := s.models.Resolve(c.Request.Context(), c.Param("name"))
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, m)
}

// registerModel answers 201 for a new name and 200 when it replaced one.
func (s *Server) registerModel(c *gin.Context) {
	var r catalog.Registration
	if err := s.bindJSON(c, &r); err != nil {
		s.fail(c, err)
		return
	}
	m, created, err := s.models.Register(c.Request.Context(), r)
	if err != nil {
		s.fail(c, err)
		return
	}
	if s.onModelRegistered != nil {
		s.onModelRegistered(m.Name)
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
		c.Header("Location", "/v1/models/"+m.Name)
	}
	c.JSON(status, m)
}

func (s *Server) deleteModel(c *gin.Context) {
	if err := s.models.Delete(c.Request.Context(), c.Param("name")); err != nil {
		s.fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}
