// Package web is the only package that speaks HTTP: the JSON API under /v1,
// the probes and the metrics endpoint. Handlers bind input, call one domain
// method and render the result; SQL and business rules live elsewhere.
package web

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/quote"
)

// Readiness reports whether the service can do its work: the database
// answers and its schema is current. A nil error means ready.
type Readiness interface {
	Ready(ctx context.Context) error
}

// Options are what the HTTP layer needs from the outside.
type Options struct {
	Logger    *slog.Logger
	Readiness Readiness
	// Registry receives the HTTP metrics; /metrics serves Gatherer. Both
	// default to a fresh registry, so that tests never share global state.
	Registry prometheus.Registerer
	Gatherer prometheus.Gatherer
	Version  string

	Quotes Quoter
	Models Models
	// MaxBodyBytes bounds a JSON request body; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
}

// Quoter estimates what traffic costs (quote.Service).
type Quoter interface {
	Estimate(ctx context.Context, req quote.Request) (quote.Result, error)
}

// Models lists, resolves, registers and deletes models (catalog.Registry).
type Models interface {
	List(ctx context.Context) ([]catalog.Model, error)
	Resolve(ctx context.Context, name string) (catalog.Model, error)
	Register(ctx context.Context, r catalog.Registration) (catalog.Model, bool, error)
	Delete(ctx context.Context, name string) error
}

// Server holds the handlers' dependencies.
type Server struct {
	log     *slog.Logger
	ready   Readiness
	metrics *httpMetrics
	gather  prometheus.Gatherer
	version string
	quotes  Quoter
	models  Models
	maxBody int64
}

// New builds the HTTP handler with every route registered.
func New(o Options) http.Handler {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Registry == nil || o.Gatherer == nil {
		reg := prometheus.NewRegistry()
		o.Registry, o.Gatherer = reg, reg
	}
	s := &Server{
		log:     o.Logger,
		ready:   o.Readiness,
		metrics: newHTTPMetrics(o.Registry),
		gather:  o.Gatherer,
		version: o.Version,
		quotes:  o.Quotes,
		models:  o.Models,
		maxBody: o.MaxBodyBytes,
	}
	if s.maxBody <= 0 {
		s.maxBody = DefaultMaxBodyBytes
	}
	return s.engine()
}

func (s *Server) engine() *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.HandleMethodNotAllowed = true
	e.ContextWithFallback = true // c.Done() follows the request's context
	e.Use(requestID(), s.accessLog(), s.recovery(), s.metrics.middleware())
	e.NoRoute(func(c *gin.Context) {
		s.fail(c, &Error{Status: http.StatusNotFound, Code: "not_found", Message: "no route for " + c.Request.Method + " " + c.Request.URL.Path})
	})
	e.NoMethod(func(c *gin.Context) {
		s.fail(c, &Error{Status: http.StatusMethodNotAllowed, Code: "method_not_allowed", Message: c.Request.Method + " is not allowed on " + c.Request.URL.Path})
	})
	s.routes(e)
	return e
}
