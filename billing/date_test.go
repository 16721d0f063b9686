package billing

import (
	"encoding/json"
	"testing"
	"time"
)

func TestParseDate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, want string
		ok             bool
	}{
		{"plain", "2026-01-01", "2026-01-01", true},
		{"leap day", "2028-02-29", "2028-02-29", true},
		{"not a leap year", "2026-02-29", "", false},
		{"day 31 of a 30-day month", "2026-04-31", "", false},
		{"one-digit month", "2026-1-01", "", false},
		{"slashes", "2026/01/01", "", false},
		{"timestamp", "2026-01-01T00:00:00Z", "", false},
		{"signed year", "+026-01-01", "", false},
		{"empty", "", "", false},
		{"trailing space", "2026-01-01 ", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseDate(tc.in)
			if (err == nil) != tc.ok {
				t.Fatalf("ParseDate(%q) error = %v, want ok %v", tc.in, err, tc.ok)
			}
			if got.String() != tc.want {
				t.Errorf("ParseDate(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestDateOf(t *testing.T) {
	t.Parallel()
	newYork := time.FixedZone("UTC-5", -5*3600)
	tokyo := time.FixedZone("UTC+9", 9*3600)
	for _, tc := range []struct {
		name string
		in   time.Time
		want string
	}{
		{"UTC midnight", time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), "2026-02-01"},
		{"last nanosecond of the day", time.Date(2026, 1, 31, 23, 59, 59, 999999999, time.UTC), "2026-01-31"},
		{"evening west of UTC is the next UTC day", time.Date(2026, 1, 31, 23, 30, 0, 0, newYork), "2026-02-01"},
		{"morning east of UTC is the previous UTC day", time.Date(2026, 2, 1, 8, 0, 0, 0, tokyo), "2026-01-31"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := DateOf(tc.in).String(); got != tc.want {
				t.Errorf("DateOf(%s) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestDateText(t *testing.T) {
	t.Parallel()
	var v struct {
		From Date `json:"from"`
	}
	if err := json.Unmarshal([]byte(`{"from": "2026-03-01"}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.From != NewDate(2026, 3, 1) {
		t.Errorf("decoded %s", v.From)
	}
	out, _ := json.Marshal(v)
	if string(out) != `{"from":"2026-03-01"}` {
		t.Errorf("encoded %s", out)
	}
	if err := json.Unmarshal([]byte(`{"from": "2026-3-1"}`), &v); err == nil {
		t.Error("accepted 2026-3-1")
	}
}
