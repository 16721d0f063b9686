package demo

import "time"

// Days is the length of the data set, in UTC days.
const Days = 90

// period places the data set and its episodes in time: the Days UTC days
// before the day of now.
type period struct {
	now   time.Time
	today time.Time // midnight UTC of now: the data ends just before it
	first time.Time // midnight UTC of the first day
}

func newPeriod(now time.Time) period {
	now = now.UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	return period{now: now, today: today, first: today.AddDate(0, 0, -Days)}
}

// day returns midnight UTC of day i (0 is the first).
func (p period) day(i int) time.Time { return p.first.AddDate(0, 0, i) }

// The episodes, as day indexes. The bloat episode lasts five days and ends
// ten days before the end (a retriever change joined chunks with runs of
// blank lines until someone noticed); the runaway agent loop is on the last
// day, so that its alerts are still open; the price cut is mid-period; the
// unregistered model is tried in staging during the last week.
const (
	bloatFirst    = Days - 14
	bloatLast     = Days - 10 // inclusive
	bloatWorkload = "rag-search"
	surgeDay      = Days - 1
	surgeWorkload = "agent"
	priceCutDay   = Days / 2
	unpricedFirst = Days - 6
)

// evalDays is how many days back alerts are first evaluated (at 06:00 UTC
// of each day, then at now; each evaluation judges the day before it).
// The first one judges the day before the bloat episode, so that its alert
// opens on the episode's first day and resolves itself after its last, as
// the hourly job would have done.
const evalDays = Days - bloatFirst

// evaluations returns the times alerts are evaluated at, in order: 06:00
// UTC of each of the last evalDays days that is before now, then now.
func (p period) evaluations() []time.Time {
	var out []time.Time
	for k := evalDays; k >= 1; k-- {
		if t := p.today.AddDate(0, 0, -k).Add(6 * time.Hour); t.Before(p.now) {
			out = append(out, t)
		}
	}
	return append(out, p.now)
}
