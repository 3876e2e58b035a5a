package billing

import "time"

// Period is a billing period [Start, End) in UTC.
type Period struct {
	Start, End time.Time
}

// daysIn counts calendar days of p, so a February period has 28 or 29.
func (p Period) daysIn() int64 {
	return int64(p.End.Sub(p.Start).Hours() / 24)
}

// ProrateCharge returns the part of monthlyCents owed for a plan change at
// t within p: the remaining days over the period's days, rounded half to
// even. A change on the first day charges the full amount.
func ProrateCharge(monthlyCents int64, p Period, t time.Time) int64 {
	t = t.UTC()
	if !t.After(p.Start) {
		return monthlyCents
	}
	if !t.Before(p.End) {
		return 0
	}
	remaining := int64(p.End.Sub(t).Hours() / 24)
	return roundHalfEven(monthlyCents*remaining, p.daysIn())
}

// NextPeriod returns the period after p, keeping the day of month and
// clamping it to the month's last day (Jan 31 → Feb 28 → Mar 31).
func NextPeriod(p Period, anchorDay int) Period {
	y, m, _ := p.End.Date()
	next := time.Date(y, m+2, 1, 0, 0, 0, 0, time.UTC)
	last := next.AddDate(0, 0, -1).Day()
	day := anchorDay
	if day > last {
		day = last
	}
	return Period{Start: p.End, End: time.Date(y, m+1, day, 0, 0, 0, 0, time.UTC)}
}
