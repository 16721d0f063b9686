// Package web is the only package that speaks HTTP: the JSON API under /v1,
// the probes and the metrics endpoint. Handlers bind input, call one domain
// method and render the result; SQL and business rules live elsewhere.
package web

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/quote"
	"github.com/flopledger/flopledger/report"
	"github.com/flopledger/flopledger/usage"
)

func orDefault[T int | int64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

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

	Quotes   Quoter
	Models   Models
	Usage    Usage
	Plans    Plans
	Reports  Reports
	Budgets  Budgets
	Maker    ReportMaker
	Archive  ReportArchive
	Notifier Notifier
	Alerts   Alerts
	Insights Insights
	// Auth checks keys and sessions; Keys manages keys. With Auth nil the
	// API is open (tests of other features only; cmd always sets it).
	Auth     Authenticator
	Keys     Keys
	Sessions SessionStarter
	// RateLimit is the requests per second allowed per key (0: none), with
	// RateBurst at once.
	RateLimit float64
	RateBurst int
	// AnonymousEstimate opens POST /v1/estimate without a key.
	AnonymousEstimate bool
	// TrustedProxies are the reverse proxies (addresses or CIDRs) whose
	// X-Forwarded-For header names the client in the access log. None by
	// default: the client is the peer, and a client cannot put another
	// address in the log by sending the header itself.
	TrustedProxies []string
	// MetricsToken, if set, is required as a bearer token on /metrics.
	MetricsToken string
	// Unavailable says whether an error means the database is out of reach
	// (store.IsUnavailable); such errors answer 503 with Retry-After.
	Unavailable func(error) bool
	// LinkBase is the service's public URL, for links in reports ("" none).
	LinkBase string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Importer reads usage files for POST /v1/import.
	Importer Importer
	// OnModelRegistered is called after a model is registered, so that the
	// caller can price that model's waiting records (backfill). Optional.
	OnModelRegistered func(name string)
	// DefaultRequestPlan and DefaultFLOPsPlan are used when a comparison
	// names no plan.
	DefaultRequestPlan, DefaultFLOPsPlan string

	// MaxBodyBytes bounds a JSON request body; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// RequestTimeout bounds each request's work: past it the request's
	// context is cancelled, so that its database work stops, and it
	// answers 503 "timeout". 0 means no limit.
	RequestTimeout time.Duration
	// MaxBatchRecords and MaxBatchBytes bound POST /v1/usage; 0 means the
	// defaults.
	MaxBatchRecords int
	MaxBatchBytes   int64
	// MaxImportBytes bounds POST /v1/import; 0 means DefaultMaxImportBytes.
	MaxImportBytes int64
}

// Usage ingests usage records (usage.Service).
type Usage interface {
	Ingest(ctx context.Context, items []usage.Item, atomic bool) (usage.Result, error)
	Unpriced(ctx context.Context) ([]usage.Unpriced, error)
}

// Plans keeps price plans (the store).
type Plans interface {
	Plans(ctx context.Context) ([]billing.Plan, error)
	Plan(ctx context.Context, name string) (billing.Plan, error)
	CreatePlan(ctx context.Context, p billing.Plan) error
	AddPlanVersion(ctx context.Context, name string, v billing.Version) (bool, error)
}

// Reports builds comparisons and series (report.Service).
type Reports interface {
	Compare(ctx context.Context, q report.Query) (report.Comparison, error)
	Daily(ctx context.Context, q report.DailyQuery) ([]report.DayPoint, error)
	Workloads(ctx context.Context, from, to billing.Date) ([]string, error)
}

// Insights reads the distributions kept at ingest (the store).
type Insights interface {
	PromptSizes(ctx context.Context, workload string, month billing.Date) ([]report.PromptBucket, error)
	LatencyStats(ctx context.Context, month billing.Date, groupBy string) (map[string]report.LatencyStats, error)
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
	log      *slog.Logger
	ready    Readiness
	metrics  *httpMetrics
	gather   prometheus.Gatherer
	version  string
	quotes   Quoter
	models   Models
	usage    Usage
	plans    Plans
	reports  Reports
	imports  Importer
	budgets  Budgets
	maker    ReportMaker
	archive  ReportArchive
	notifier Notifier
	alerts   Alerts
	insights Insights
	linkBase string

	unavailable func(error) bool

	auth              Authenticator
	keys              Keys
	sessions          SessionStarter
	limiter           *keyLimiter
	anonymousEstimate bool
	trustedProxies    []string
	metricsToken      string
	now               func() time.Time

	onModelRegistered                    func(string)
	defaultRequestPlan, defaultFLOPsPlan string

	maxBody, maxBatchBytes, maxImportBytes int64
	requestTimeout                         time.Duration
	maxBatchRecords                        int
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
		log:      o.Logger,
		ready:    o.Readiness,
		metrics:  newHTTPMetrics(o.Registry),
		gather:   o.Gatherer,
		version:  o.Version,
		quotes:   o.Quotes,
		models:   o.Models,
		usage:    o.Usage,
		plans:    o.Plans,
		reports:  o.Reports,
		imports:  o.Importer,
		budgets:  o.Budgets,
		maker:    o.Maker,
		archive:  o.Archive,
		notifier: o.Notifier,
		alerts:   o.Alerts,
		insights: o.Insights,

		unavailable: o.Unavailable,

		auth:              o.Auth,
		keys:              o.Keys,
		sessions:          o.Sessions,
		limiter:           newKeyLimiter(o.RateLimit, max(o.RateBurst, 1)),
		anonymousEstimate: o.AnonymousEstimate,
		metricsToken:      o.MetricsToken,
		linkBase:          o.LinkBase,
		now:               o.Now,

		onModelRegistered:  o.OnModelRegistered,
		defaultRequestPlan: o.DefaultRequestPlan,
		defaultFLOPsPlan:   o.DefaultFLOPsPlan,

		maxBody:         orDefault(o.MaxBodyBytes, DefaultMaxBodyBytes),
		requestTimeout:  o.RequestTimeout,
		trustedProxies:  o.TrustedProxies,
		maxBatchBytes:   orDefault(o.MaxBatchBytes, DefaultMaxBatchBytes),
		maxImportBytes:  orDefault(o.MaxImportBytes, DefaultMaxImportBytes),
		maxBatchRecords: orDefault(o.MaxBatchRecords, DefaultMaxBatchRecords),
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s.engine()
}

func (s *Server) engine() *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.HandleMethodNotAllowed = true
	e.ContextWithFallback = true // c.Done() follows the request's context
	if err := e.SetTrustedProxies(s.trustedProxies); err != nil {
		// cmd checks every entry; a bad one here is a programming error.
		panic("web: trusted proxies: " + err.Error())
	}
	e.Use(requestID(), s.accessLog(), s.recovery(), s.metrics.middleware(), securityHeaders())
	if s.requestTimeout > 0 {
		e.Use(deadline(s.requestTimeout))
	}
	e.NoRoute(func(c *gin.Context) {
		s.fail(c, &Error{Status: http.StatusNotFound, Code: "not_found", Message: "no route for " + c.Request.Method + " " + c.Request.URL.Path})
	})
	e.NoMethod(func(c *gin.Context) {
		s.fail(c, &Error{Status: http.StatusMethodNotAllowed, Code: "method_not_allowed", Message: c.Request.Method + " is not allowed on " + c.Request.URL.Path})
	})
	s.routes(e)
	return e
}
