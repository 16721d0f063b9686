package report

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/flopledger/flopledger/billing"
)

// ErrNotFound is wrapped by the store when no report has the id.
var ErrNotFound = errors.New("report not found")

// Stored is a report as it was made and kept: its JSON, CSV and HTML, so
// that a delivery that failed can be retried and a reader sees what was sent.
type Stored struct {
	ID          int64           `json:"id"`
	Kind        string          `json:"kind"` // "monthly", "weekly", or a schedule's name
	PeriodStart billing.Date    `json:"period_start"`
	PeriodEnd   billing.Date    `json:"period_end"`
	GroupBy     string          `json:"group_by"`
	RequestPlan string          `json:"request_plan"`
	FLOPsPlan   string          `json:"flops_plan"`
	Body        json.RawMessage `json:"report"`
	CSV         string          `json:"-"`
	HTML        string          `json:"-"`
	Summary     string          `json:"summary"`
	CreatedAt   time.Time       `json:"created_at"`
}

// Delivery is one attempt to deliver a report on a channel.
type Delivery struct {
	ID      int64     `json:"id"`
	Channel string    `json:"channel"`
	Kind    string    `json:"kind"`
	Try     int       `json:"try"`
	At      time.Time `json:"at"`
	TookMS  int64     `json:"took_ms"`
	OK      bool      `json:"ok"`
	Final   bool      `json:"final"`
	Error   string    `json:"error,omitempty"`
}
