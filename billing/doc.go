// Package billing holds price plans and prices usage under them, with exact
// decimal money (MISSION.md, "Money").
//
// Two kinds of plan exist. A request plan charges a fee per request and a
// price per million input, cached input and output tokens, per model. A
// FLOPs plan charges a price per TFLOP (10^12 FLOPs), possibly different for
// prefill and decode. A plan has versions, each in force from a UTC date;
// usage is priced by the version in force on the UTC day it occurred.
//
// Costs are exact: prices multiply integer quantities and are shifted by
// 10^-6 or 10^-12, so a per-record cost keeps every digit (fractions of a
// micro-dollar). The only rounded figures are the comparison ratios
// (delta_pct, break-even and revenue-neutral prices, prefill share), which
// are display and decision figures, never invoiced amounts, and
// FormatMoney, which is for display. Each states its precision and mode.
//
// The package is pure: no I/O, no clock, no mutable globals. It never reads
// shopspring/decimal's global settings either (DivisionPrecision,
// MarshalJSONWithoutQuotes, TrimTrailingZeros): every division names its
// precision and every decimal it writes to JSON is a plain string.
package billing
