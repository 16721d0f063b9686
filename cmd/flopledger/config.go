package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/flopledger/flopledger/deliver"
	"github.com/flopledger/flopledger/report"
)

// Config is every setting of the binary, read once at start from the
// environment with flags as overrides, and validated before anything starts.
type Config struct {
	Addr            string
	DatabaseURL     string
	DataDir         string
	LogLevel        slog.Level
	LogFormat       string // "json" or "text"
	AutoMigrate     bool
	ShutdownTimeout time.Duration
	PGUser          string // account that runs the embedded PostgreSQL when we are root

	GroupTags         []string
	RequestPlan       string
	FLOPsPlan         string
	MaxBatchRecords   int
	MaxBatchBytes     int64
	MaxImportBytes    int64
	RetentionMonths   int
	RetentionSchedule string

	PublicURL      string
	ReportSchedule string
	ReportTZ       *time.Location
	Schedules      []report.Schedule // extra schedules, from JSON
	AlertSchedule  string
	SMTP           deliver.SMTPConfig
	WebhookURL     string
	WebhookSecret  string
	// Channels are extra named channels (per-team recipients), from JSON.
	Channels []channelConfig

	AdminKey          string
	RateLimit         float64
	RateBurst         int
	AnonymousEstimate bool
	MetricsToken      string
	RequestTimeout    time.Duration
	TrustedProxies    []string
	Demo              bool
}

// setting is one configuration item: its environment variable, its flag,
// its default and how to apply a raw value to the Config.
type setting struct {
	env, flag, def, help string
	secret               bool
	apply                func(c *Config, v string) error
}

var settings = []setting{
	{env: "FLOPLEDGER_ADDR", flag: "addr", def: "127.0.0.1:8080", help: "HTTP listen address (host:port)",
		apply: func(c *Config, v string) error {
			host, port, err := net.SplitHostPort(v)
			if err != nil {
				return fmt.Errorf("want host:port, e.g. 127.0.0.1:8080")
			}
			if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
				return fmt.Errorf("port %q is not a number from 0 to 65535", port)
			}
			if host != "" && net.ParseIP(host) == nil && host != "localhost" {
				return fmt.Errorf("host %q is not an IP address or localhost", host)
			}
			c.Addr = v
			return nil
		}},
	{env: "DATABASE_URL", flag: "database-url", def: "", secret: true,
		help: "PostgreSQL URL; empty starts the embedded PostgreSQL in the data dir",
		apply: func(c *Config, v string) error {
			if v != "" && !strings.HasPrefix(v, "postgres://") && !strings.HasPrefix(v, "postgresql://") && !strings.Contains(v, "=") {
				return fmt.Errorf("want a URL postgres://user:pass@host:5432/db or a key=value DSN")
			}
			c.DatabaseURL = v
			return nil
		}},
	{env: "FLOPLEDGER_DATA_DIR", flag: "data-dir", def: "./.flopledger", help: "folder for the embedded PostgreSQL and local state",
		apply: func(c *Config, v string) error {
			if v == "" {
				return fmt.Errorf("must not be empty")
			}
			abs, err := filepath.Abs(v)
			if err != nil {
				return err
			}
			c.DataDir = abs
			return nil
		}},
	{env: "FLOPLEDGER_LOG_LEVEL", flag: "log-level", def: "info", help: "debug, info, warn or error",
		apply: func(c *Config, v string) error {
			return c.LogLevel.UnmarshalText([]byte(v))
		}},
	{env: "FLOPLEDGER_LOG_FORMAT", flag: "log-format", def: "json", help: "json or text",
		apply: func(c *Config, v string) error {
			if v != "json" && v != "text" {
				return fmt.Errorf("want json or text")
			}
			c.LogFormat = v
			return nil
		}},
	{env: "FLOPLEDGER_AUTO_MIGRATE", flag: "auto-migrate", def: "true",
		help: "apply pending migrations at start; false refuses to start on a schema that is behind",
		apply: func(c *Config, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("want true or false")
			}
			c.AutoMigrate = b
			return nil
		}},
	{env: "FLOPLEDGER_SHUTDOWN_TIMEOUT", flag: "shutdown-timeout", def: "30s",
		help: "how long SIGINT/SIGTERM waits for in-flight requests and jobs",
		apply: func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return fmt.Errorf("want a positive duration such as 30s")
			}
			c.ShutdownTimeout = d
			return nil
		}},
	{env: "FLOPLEDGER_PG_USER", flag: "pg-user", def: "postgres",
		help: "unprivileged account that runs the embedded PostgreSQL when flopledger runs as root",
		apply: func(c *Config, v string) error {
			if v == "" {
				return fmt.Errorf("must not be empty")
			}
			c.PGUser = v
			return nil
		}},
	{env: "FLOPLEDGER_GROUP_TAGS", flag: "group-tags", def: "team",
		help: "comma-separated tag keys kept in the daily rollups, for group_by=tag:NAME",
		apply: func(c *Config, v string) error {
			c.GroupTags = nil
			for _, t := range strings.Split(v, ",") {
				if t = strings.TrimSpace(t); t != "" {
					c.GroupTags = append(c.GroupTags, t)
				}
			}
			return nil
		}},
	{env: "FLOPLEDGER_REQUEST_PLAN", flag: "request-plan", def: "list-price", help: "request plan used when a comparison or report names none",
		apply: func(c *Config, v string) error { c.RequestPlan = v; return nil }},
	{env: "FLOPLEDGER_FLOPS_PLAN", flag: "flops-plan", def: "flops-tariff", help: "FLOPs plan used when a comparison or report names none",
		apply: func(c *Config, v string) error { c.FLOPsPlan = v; return nil }},
	{env: "FLOPLEDGER_MAX_BATCH_RECORDS", flag: "max-batch-records", def: "10000", help: "records per POST /v1/usage",
		apply: func(c *Config, v string) error { n, err := positive(v); c.MaxBatchRecords = int(n); return err }},
	{env: "FLOPLEDGER_MAX_BATCH_BYTES", flag: "max-batch-bytes", def: "33554432", help: "bytes per POST /v1/usage",
		apply: func(c *Config, v string) error { n, err := positive(v); c.MaxBatchBytes = n; return err }},
	{env: "FLOPLEDGER_MAX_IMPORT_BYTES", flag: "max-import-bytes", def: "268435456", help: "bytes per POST /v1/import",
		apply: func(c *Config, v string) error { n, err := positive(v); c.MaxImportBytes = n; return err }},
	{env: "FLOPLEDGER_RETENTION_MONTHS", flag: "retention-months", def: "0",
		help: "drop raw usage records older than this many whole months (the daily rollups keep the history); 0 keeps them forever",
		apply: func(c *Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > 1200 {
				return fmt.Errorf("want a number of months from 0 (keep forever) to 1200")
			}
			c.RetentionMonths = n
			return nil
		}},
	{env: "FLOPLEDGER_RETENTION_SCHEDULE", flag: "retention-schedule", def: "30 3 * * *", help: "cron spec (UTC) of the retention job",
		apply: func(c *Config, v string) error {
			if _, err := cron.ParseStandard(v); err != nil {
				return fmt.Errorf("not a cron spec: %v", err)
			}
			c.RetentionSchedule = v
			return nil
		}},
	{env: "FLOPLEDGER_PUBLIC_URL", flag: "public-url", def: "", help: "the service's public URL, for links in reports and alerts",
		apply: func(c *Config, v string) error {
			if v != "" && !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "https://") {
				return fmt.Errorf("want an absolute http(s) URL")
			}
			c.PublicURL = strings.TrimRight(v, "/")
			return nil
		}},
	{env: "FLOPLEDGER_REPORT_SCHEDULE", flag: "report-schedule", def: "0 6 1 * *", help: "cron spec of the monthly report (previous month), in FLOPLEDGER_REPORT_TZ",
		apply: func(c *Config, v string) error { c.ReportSchedule = v; return cronSpec(v) }},
	{env: "FLOPLEDGER_REPORT_TZ", flag: "report-tz", def: "UTC", help: "time zone of the report schedules",
		apply: func(c *Config, v string) error {
			loc, err := time.LoadLocation(v)
			c.ReportTZ = loc
			if err != nil {
				return fmt.Errorf("unknown time zone (want e.g. UTC or Europe/Paris)")
			}
			return nil
		}},
	{env: "FLOPLEDGER_SCHEDULES", flag: "schedules", def: "",
		help: `extra report schedules, JSON: [{"name": "team-monthly", "spec": "0 7 1 * *", "group_by": "tag:team", "channels": ["care-mail"]}, {"name": "weekly", "kind": "weekly", "spec": "0 7 * * 1"}]`,
		apply: func(c *Config, v string) error {
			c.Schedules = nil
			if v == "" {
				return nil
			}
			dec := json.NewDecoder(strings.NewReader(v))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&c.Schedules); err != nil {
				return fmt.Errorf("not a JSON list of schedules: %v", err)
			}
			for i, s := range c.Schedules {
				if s.Name == "" || s.Name == "monthly" {
					return fmt.Errorf("schedule %d: a name other than \"monthly\" is required", i)
				}
				if err := cronSpec(s.Spec); err != nil {
					return fmt.Errorf("schedule %q: %v", s.Name, err)
				}
				if s.Kind != "" && s.Kind != "monthly" && s.Kind != "weekly" {
					return fmt.Errorf("schedule %q: kind must be monthly or weekly", s.Name)
				}
			}
			return nil
		}},
	{env: "FLOPLEDGER_ALERT_SCHEDULE", flag: "alert-schedule", def: "5 * * * *", help: "cron spec (UTC) of the alert evaluation",
		apply: func(c *Config, v string) error { c.AlertSchedule = v; return cronSpec(v) }},
	{env: "FLOPLEDGER_SMTP_HOST", flag: "smtp-host", def: "", help: "SMTP server for report and alert mail; empty: no e-mail",
		apply: func(c *Config, v string) error { c.SMTP.Host = v; return nil }},
	{env: "FLOPLEDGER_SMTP_PORT", flag: "smtp-port", def: "587", help: "SMTP port",
		apply: func(c *Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 || n > 65535 {
				return fmt.Errorf("want a port number")
			}
			c.SMTP.Port = n
			return nil
		}},
	{env: "FLOPLEDGER_SMTP_USERNAME", flag: "smtp-username", def: "", help: "SMTP user (AUTH PLAIN) if the server wants one",
		apply: func(c *Config, v string) error { c.SMTP.Username = v; return nil }},
	{env: "FLOPLEDGER_SMTP_PASSWORD", flag: "smtp-password", def: "", secret: true, help: "SMTP password",
		apply: func(c *Config, v string) error { c.SMTP.Password = v; return nil }},
	{env: "FLOPLEDGER_SMTP_FROM", flag: "smtp-from", def: "flopledger@localhost", help: "From address",
		apply: func(c *Config, v string) error { c.SMTP.From = v; return nil }},
	{env: "FLOPLEDGER_SMTP_TO", flag: "smtp-to", def: "", help: "comma-separated recipients of reports and alerts",
		apply: func(c *Config, v string) error { c.SMTP.To = splitList(v); return nil }},
	{env: "FLOPLEDGER_SMTP_TLS", flag: "smtp-tls", def: "starttls", help: "starttls, tls (implicit, port 465) or none (loopback relays only)",
		apply: func(c *Config, v string) error { c.SMTP.TLS = v; return nil }},
	{env: "FLOPLEDGER_WEBHOOK_URL", flag: "webhook-url", def: "", secret: true, help: "webhook for reports and alerts (Slack-compatible); empty: none",
		apply: func(c *Config, v string) error { c.WebhookURL = v; return nil }},
	{env: "FLOPLEDGER_WEBHOOK_SECRET", flag: "webhook-secret", def: "", secret: true, help: "HMAC-SHA256 key that signs webhook bodies (at least 16 bytes)",
		apply: func(c *Config, v string) error { c.WebhookSecret = v; return nil }},
	{env: "FLOPLEDGER_ADMIN_KEY", flag: "admin-key", def: "", secret: true,
		help: "an admin API key kept in the environment; when unset and no key exists, the first start makes one and prints it once",
		apply: func(c *Config, v string) error {
			if v != "" && len(v) < 16 {
				return fmt.Errorf("too short: use at least 16 random characters")
			}
			c.AdminKey = v
			return nil
		}},
	{env: "FLOPLEDGER_RATE_LIMIT", flag: "rate-limit", def: "50", help: "requests per second per API key (0: no limit)",
		apply: func(c *Config, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f < 0 || f > 1e6 {
				return fmt.Errorf("want a number of requests per second, 0 for no limit")
			}
			c.RateLimit = f
			return nil
		}},
	{env: "FLOPLEDGER_RATE_BURST", flag: "rate-burst", def: "100", help: "requests a key may send at once above the rate",
		apply: func(c *Config, v string) error { n, err := positive(v); c.RateBurst = int(n); return err }},
	{env: "FLOPLEDGER_ANONYMOUS_ESTIMATE", flag: "anonymous-estimate", def: "false", help: "let POST /v1/estimate answer without a key",
		apply: func(c *Config, v string) error {
			b, err := strconv.ParseBool(v)
			c.AnonymousEstimate = b
			if err != nil {
				return fmt.Errorf("want true or false")
			}
			return nil
		}},
	{env: "FLOPLEDGER_METRICS_TOKEN", flag: "metrics-token", def: "", secret: true, help: "bearer token required on /metrics; empty leaves it open",
		apply: func(c *Config, v string) error { c.MetricsToken = v; return nil }},
	{env: "FLOPLEDGER_REQUEST_TIMEOUT", flag: "request-timeout", def: "60s", help: "longest time a request may take (body included)",
		apply: func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return fmt.Errorf("want a positive duration such as 60s")
			}
			c.RequestTimeout = d
			return nil
		}},
	{env: "FLOPLEDGER_TRUSTED_PROXIES", flag: "trusted-proxies", def: "", help: "comma-separated addresses or CIDRs of reverse proxies whose X-Forwarded-For names the client; empty: none, the client is the peer",
		apply: func(c *Config, v string) error {
			c.TrustedProxies = nil
			for _, p := range strings.Split(v, ",") {
				if p = strings.TrimSpace(p); p == "" {
					continue
				}
				if _, _, err := net.ParseCIDR(p); err != nil && net.ParseIP(p) == nil {
					return fmt.Errorf("%q is neither an IP address nor a CIDR", p)
				}
				c.TrustedProxies = append(c.TrustedProxies, p)
			}
			return nil
		}},
	{env: "FLOPLEDGER_DEMO", flag: "demo", def: "false", help: "seed a 90-day demo data set into an empty database at start",
		apply: func(c *Config, v string) error {
			b, err := strconv.ParseBool(v)
			c.Demo = b
			if err != nil {
				return fmt.Errorf("want true or false")
			}
			return nil
		}},
	{env: "FLOPLEDGER_CHANNELS", flag: "channels", def: "", secret: true,
		help: `extra named channels, JSON: [{"name": "care-mail", "kind": "email", "to": ["care@example.com"]}, {"name": "care-slack", "kind": "webhook", "url": "https://…", "secret": "…"}]; e-mail ones use the FLOPLEDGER_SMTP_* server`,
		apply: func(c *Config, v string) error {
			c.Channels = nil
			if v == "" {
				return nil
			}
			dec := json.NewDecoder(strings.NewReader(v))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&c.Channels); err != nil {
				return fmt.Errorf("not a JSON list of channels: %v", err)
			}
			for i, ch := range c.Channels {
				if ch.Name == "" || ch.Name == "email" || ch.Name == "webhook" {
					return fmt.Errorf("channel %d: a name other than email and webhook is required", i)
				}
				if ch.Kind != "email" && ch.Kind != "webhook" {
					return fmt.Errorf("channel %q: kind must be email or webhook", ch.Name)
				}
			}
			return nil
		}},
}

// channelConfig is one extra channel of FLOPLEDGER_CHANNELS.
type channelConfig struct {
	Name   string   `json:"name"`
	Kind   string   `json:"kind"`
	To     []string `json:"to,omitempty"`
	URL    string   `json:"url,omitempty"`
	Secret string   `json:"secret,omitempty"`
}

func cronSpec(v string) error {
	if _, err := cron.ParseStandard(v); err != nil {
		return fmt.Errorf("not a cron spec: %v", err)
	}
	return nil
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func positive(v string) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 || n > 1<<40 {
		return 0, fmt.Errorf("want a positive integer")
	}
	return n, nil
}

// loadConfig reads the settings from getenv, then from args (flags win),
// and reports every bad value at once, each naming its setting.
func loadConfig(cmd string, args []string, getenv func(string) string, out io.Writer) (Config, error) {
	fs := flag.NewFlagSet("flopledger "+cmd, flag.ContinueOnError)
	fs.SetOutput(out)
	flags := make([]*string, len(settings))
	for i, s := range settings {
		usage := fmt.Sprintf("%s (env %s, default %q)", s.help, s.env, s.def)
		v := new(string)
		if s.def == "true" || s.def == "false" {
			// A yes/no setting is a boolean flag: --demo alone means true,
			// --demo=false says no.
			fs.Var((*boolFlag)(v), s.flag, usage)
		} else {
			fs.StringVar(v, s.flag, "", usage)
		}
		flags[i] = v
	}
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })

	var c Config
	var errs []error
	for i, s := range settings {
		v, from := s.def, "default"
		if e, ok := lookupEnv(getenv, s.env); ok {
			v, from = e, s.env
		}
		if given[s.flag] {
			v, from = *flags[i], "--"+s.flag
		}
		if err := s.apply(&c, strings.TrimSpace(v)); err != nil {
			shown := fmt.Sprintf("%q", v)
			if s.secret {
				shown = "(hidden)"
			}
			errs = append(errs, fmt.Errorf("invalid %s (from %s) %s: %v", s.env, from, shown, err))
		}
	}
	return c, errors.Join(errs...)
}

// lookupEnv treats an empty variable as unset, as shells and compose files
// often export empty values.
func lookupEnv(getenv func(string) string, key string) (string, bool) {
	v := getenv(key)
	return v, v != ""
}

func (c Config) logger(w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: c.LogLevel}
	if c.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// boolFlag is a string flag that, like a bool flag, may stand alone.
type boolFlag string

func (b *boolFlag) String() string     { return string(*b) }
func (b *boolFlag) Set(v string) error { *b = boolFlag(v); return nil }
func (b *boolFlag) IsBoolFlag() bool   { return true }
