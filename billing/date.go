package billing

import (
	"fmt"
	"time"
)

// dateLayout is the only date form plans accept: YYYY-MM-DD.
const dateLayout = "2006-01-02"

// Date is a calendar day in UTC, the granularity at which plan versions take
// effect. The zero Date means "not set". Compare Dates with Compare, Before
// and After; == also works, since every Date holds a UTC midnight.
type Date struct {
	t time.Time // always midnight UTC
}

// NewDate returns the given day; out-of-range values normalise as in
// time.Date (January 32 is February 1).
func NewDate(year int, month time.Month, day int) Date {
	return Date{t: time.Date(year, month, day, 0, 0, 0, 0, time.UTC)}
}

// DateOf returns the UTC day that t falls in, whatever t's location:
// 2026-01-31T23:30:00-05:00 is on 2026-02-01.
func DateOf(t time.Time) Date {
	y, m, d := t.UTC().Date()
	return NewDate(y, m, d)
}

// ParseDate reads a strict YYYY-MM-DD date (exactly ten characters, a real
// calendar day). It does not range-check the year; Plan.Validate does.
func ParseDate(s string) (Date, error) {
	if len(s) != len(dateLayout) {
		return Date{}, fmt.Errorf("date %q is not YYYY-MM-DD", s)
	}
	t, err := time.Parse(dateLayout, s)
	if err != nil {
		return Date{}, fmt.Errorf("date %q is not a valid YYYY-MM-DD day", s)
	}
	return Date{t: t}, nil
}

// IsZero reports whether d is the zero Date (not set).
func (d Date) IsZero() bool { return d.t.IsZero() }

// Time returns midnight UTC at the start of d.
func (d Date) Time() time.Time { return d.t }

// Compare returns -1, 0 or +1 as d is before, equal to or after e.
func (d Date) Compare(e Date) int { return d.t.Compare(e.t) }

// Before reports whether d is before e.
func (d Date) Before(e Date) bool { return d.t.Before(e.t) }

// After reports whether d is after e.
func (d Date) After(e Date) bool { return d.t.After(e.t) }

// String returns YYYY-MM-DD, or "" for the zero Date.
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return d.t.Format(dateLayout)
}

// MarshalText writes YYYY-MM-DD (empty for the zero Date).
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads a strict YYYY-MM-DD; empty text gives the zero Date.
func (d *Date) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*d = Date{}
		return nil
	}
	v, err := ParseDate(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}
