package web

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/flopledger/flopledger/billing"
)

func (s *Server) listPlans(c *gin.Context) {
	ps, err := s.plans.Plans(c.Request.Context())
	if err != nil {
		s.fail(c, err)
		return
	}
	if ps == nil {
		ps = []billing.Plan{}
	}
	c.JSON(http.StatusOK, gin.H{"plans": ps})
}

func (s *Server) getPlan(c *gin.Context) {
	p, err := s.plans.Plan(c.Request.Context(), c.Param("name"))
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, p)
}

// createPlan takes the plan body with its first version inline (or a list
// of versions) and answers 201 with the stored plan.
func (s *Server) createPlan(c *gin.Context) {
	body, err := s.readJSONBody(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	p, err := billing.DecodePlan(body)
	if err != nil {
		s.fail(c, err)
		return
	}
	if err := s.plans.CreatePlan(c.Request.Context(), p); err != nil {
		s.fail(c, err)
		return
	}
	c.Header("Location", "/v1/plans/"+p.Name)
	s.respondPlan(c, http.StatusCreated, p.Name)
}

// addPlanVersion adds a version, or replaces the one of the same day
// (200 then; 201 for a new day). Records are priced by the version in force
// when they occurred, so a new version reprices history from its date on.
func (s *Server) addPlanVersion(c *gin.Context) {
	name := c.Param("name")
	p, err := s.plans.Plan(c.Request.Context(), name)
	if err != nil {
		s.fail(c, err)
		return
	}
	body, err := s.readJSONBody(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	v, err := billing.DecodeVersion(p.Kind, body)
	if err != nil {
		s.fail(c, err)
		return
	}
	replaced, err := s.plans.AddPlanVersion(c.Request.Context(), name, v)
	if err != nil {
		s.fail(c, err)
		return
	}
	status := http.StatusCreated
	if replaced {
		status = http.StatusOK
	}
	s.respondPlan(c, status, name)
}

func (s *Server) respondPlan(c *gin.Context, status int, name string) {
	p, err := s.plans.Plan(c.Request.Context(), name)
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(status, p)
}
