package web

import (
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"math/big"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/estimator"
)

// The figures of the pages, written for people. Every rounding here is
// for display only and rounds half away from zero (decimal.Round); the
// exact figure is kept in a title attribute, shown on hover.

const minus = "−" // U+2212, the typographic minus sign

// pageFuncs are the template functions of every page.
func pageFuncs() template.FuncMap {
	return template.FuncMap{
		"money":       moneyHTML,
		"price":       priceHTML,
		"pct":         formatSignedPct,
		"pctPlain":    formatPct,
		"count":       formatCount,
		"flops":       flopsHTML,
		"params":      paramsHTML,
		"dateTime":    formatTime,
		"day":         func(d billing.Date) string { return d.Time().Format("2 Jan 2006") },
		"workloadURL": workloadURL,
		"stateLabel":  func(s any) string { return strings.ReplaceAll(fmt.Sprint(s), "_", " ") },
		"ms":          func(v float64) string { return formatCount(int64(math.Round(v))) + " ms" },
	}
}

// formatMoney writes a dollar amount: from a dollar up, two places and
// grouped thousands ("$1,234.56"); below a dollar, three significant digits
// and at least two places ("$0.50", "$0.645", "$0.00452"), so that a small
// bill keeps its figures and a non-zero amount never reads "$0.00". A
// negative amount has a minus sign before the dollar sign.
func formatMoney(d decimal.Decimal) string {
	if d.IsZero() {
		return "$0.00"
	}
	sign := ""
	if d.IsNegative() {
		sign, d = minus, d.Neg()
	}
	if d.GreaterThanOrEqual(decimal.NewFromInt(1)) {
		return sign + "$" + billing.Thousands(d.StringFixed(2))
	}
	s := significant(d, 3)
	if _, frac, _ := strings.Cut(s, "."); len(frac) < 2 {
		s = d.StringFixed(2) // 0.5 → 0.50; a rounding up to 1 stays "1.00"
	}
	return sign + "$" + s
}

// significant writes a positive d below 1 with n significant digits,
// trailing zeros dropped, in plain notation ("0.00452"), up to 30 places.
func significant(d decimal.Decimal, n int32) string {
	places := int32(0)
	for places < 30 && d.Shift(places).LessThan(decimal.NewFromInt(1)) {
		places++
	}
	s := d.StringFixed(min(places+n-1, 30))
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "0" {
		return "0." + strings.Repeat("0", 29) + "1" // below the precision shown: the smallest amount, not zero
	}
	return s
}

func moneyHTML(d decimal.Decimal) template.HTML {
	return titled(formatMoney(d), "exactly $"+d.String())
}

// priceHTML writes a price per TFLOP (or any small unit price): four
// significant digits below a dollar ("$0.00002454"), the exact figure on
// hover.
func priceHTML(d *decimal.Decimal) template.HTML {
	if d == nil {
		return template.HTML(`<span title="undefined without FLOPs">—</span>`)
	}
	return titled(formatPrice(*d), "exactly $"+d.String())
}

func formatPrice(d decimal.Decimal) string {
	if d.IsZero() {
		return "$0"
	}
	sign := ""
	if d.IsNegative() {
		sign, d = minus, d.Neg()
	}
	if d.GreaterThanOrEqual(decimal.NewFromInt(1)) {
		s := d.Round(6).String()
		return sign + "$" + billing.Thousands(s)
	}
	return sign + "$" + significant(d, 4)
}

// formatSignedPct writes a percentage with one place and its sign
// ("+12.3%", "−4.5%", "0.0%"); nil (undefined, e.g. against a zero bill)
// is a dash.
func formatSignedPct(d *decimal.Decimal) string {
	if d == nil {
		return "—"
	}
	r := d.Round(1)
	switch {
	case r.IsPositive():
		return "+" + billing.Thousands(r.StringFixed(1)) + "%"
	case r.IsNegative():
		return minus + billing.Thousands(r.Neg().StringFixed(1)) + "%"
	}
	return "0.0%"
}

// formatPct writes a percentage with one place and no sign unless it is
// negative ("64.5%").
func formatPct(d decimal.Decimal) string {
	r := d.Round(1)
	if r.IsNegative() {
		return minus + billing.Thousands(r.Neg().StringFixed(1)) + "%"
	}
	return billing.Thousands(r.StringFixed(1)) + "%"
}

// formatCount groups the digits of a count by thousands ("1,234,567").
func formatCount(n int64) string {
	if n < 0 {
		return minus + billing.Thousands(strconv.FormatInt(-n, 10))
	}
	return billing.Thousands(strconv.FormatInt(n, 10))
}

// toBig reads a FLOPs figure, exact, whatever form it comes in.
func toBig(v any) *big.Int {
	switch x := v.(type) {
	case *big.Int:
		if x == nil {
			return new(big.Int)
		}
		return x
	case decimal.Decimal:
		return x.Round(0).BigInt()
	case *decimal.Decimal:
		if x == nil {
			return new(big.Int)
		}
		return x.Round(0).BigInt()
	case json.Number:
		n, ok := new(big.Int).SetString(string(x), 10)
		if !ok {
			return new(big.Int)
		}
		return n
	case int64:
		return big.NewInt(x)
	case int:
		return big.NewInt(int64(x))
	}
	return new(big.Int)
}

// flopsText writes FLOPs with an SI prefix ("2.31 TFLOPs").
func flopsText(v any) string { return estimator.HumanFLOPs(toBig(v)) }

// flopsHTML writes FLOPs with an SI prefix, the exact integer on hover.
func flopsHTML(v any) template.HTML {
	n := toBig(v)
	return titled(estimator.HumanFLOPs(n), billing.Thousands(n.String())+" FLOPs")
}

// paramsHTML writes a parameter count briefly ("8.03B"), exact on hover.
func paramsHTML(n int64) template.HTML {
	units := []struct {
		div  int64
		unit string
	}{{1_000_000_000_000, "T"}, {1_000_000_000, "B"}, {1_000_000, "M"}, {1_000, "k"}}
	short := formatCount(n)
	for _, u := range units {
		if n >= u.div {
			short = decimal.NewFromInt(n).DivRound(decimal.NewFromInt(u.div), 2).StringFixed(2) + u.unit
			break
		}
	}
	return titled(short, formatCount(n)+" parameters")
}

func titled(text, title string) template.HTML {
	return template.HTML(`<span title="` + template.HTMLEscapeString(title) + `">` + template.HTMLEscapeString(text) + `</span>`)
}

// formatTime writes an instant in UTC, to the minute (the footer of every
// page says that times are UTC).
func formatTime(v any) string {
	switch t := v.(type) {
	case time.Time:
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2 Jan 2006 15:04")
	case *time.Time:
		if t == nil || t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2 Jan 2006 15:04")
	}
	return fmt.Sprint(v)
}

// workloadURL is the page of a workload; the name is one path segment,
// escaped (a workload name may hold any printable character).
func workloadURL(name string, month string) string {
	u := "/workloads/" + url.PathEscape(name)
	if month != "" {
		u += "?month=" + url.QueryEscape(month)
	}
	return u
}
