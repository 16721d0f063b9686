package alert

import (
	"fmt"
	"time"
)

// BaselineDays is the length of the baseline that prompt_inflation and
// flops_surge compare the evaluated day with: the 7 UTC days before it.
const BaselineDays = 7

// DayWindow returns the window the data kinds evaluate at now: the last
// complete UTC day, [midnight(now) − 24 h, midnight(now)). The rollups are
// daily, so a day is only whole once it is over (see the package doc).
func DayWindow(now time.Time) Window {
	t := now.UTC()
	midnight := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	return Window{Start: midnight.AddDate(0, 0, -1), End: midnight}
}

// Baseline returns the BaselineDays days before w.
func Baseline(w Window) Window {
	return Window{Start: w.Start.AddDate(0, 0, -BaselineDays), End: w.Start}
}

// MonthWindow returns the UTC calendar month that t falls in.
func MonthWindow(t time.Time) Window {
	t = t.UTC()
	start := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	return Window{Start: start, End: start.AddDate(0, 1, 0)}
}

// Contains reports whether t is in [Start, End).
func (w Window) Contains(t time.Time) bool { return !t.Before(w.Start) && t.Before(w.End) }

// label names w for a sentence: "2026-10-05" for one UTC day, "2026-10"
// for a UTC calendar month, the range otherwise.
func (w Window) label() string {
	if d := DayWindow(w.End); d.equal(w) {
		return w.Start.UTC().Format(time.DateOnly)
	}
	if m := MonthWindow(w.Start); m.equal(w) {
		return w.Start.UTC().Format("2006-01")
	}
	return fmt.Sprintf("%s to %s", w.Start.UTC().Format(time.RFC3339), w.End.UTC().Format(time.RFC3339))
}

func (w Window) equal(v Window) bool { return w.Start.Equal(v.Start) && w.End.Equal(v.End) }
