package web

import (
	"fmt"
	"html/template"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/estimator"
)

// A tiny chart helper: bars, stacked bars and lines drawn as inline SVG on
// the server, so that charts need no script and no library. Values are
// float64 for the geometry only; every point carries its exact figure as
// text, shown on hover (<title>), and the pages give the same figures in a
// table. Colours come from the stylesheet by class (app.css), so that the
// same class means the same thing on every chart.

type chartKind int

const (
	chartBars    chartKind = iota // one bar per series side by side
	chartStacked                  // series stacked in one bar
	chartLines                    // one line per series
)

// chartSeries is one series: its legend name, its CSS class, one value per
// category (NaN: no value, a gap in a line) and each point's exact text.
type chartSeries struct {
	Name   string
	Class  string
	Values []float64
	Texts  []string
}

// chart describes a chart; SVG draws it.
type chart struct {
	ID     string // unique on the page: the title and desc ids derive from it
	Title  string
	Desc   string
	XLabel string
	YLabel string
	X      []string // category labels, one per point
	// XEvery draws every n-th category label (all when 0 or 1), so that 31
	// days stay legible on a phone.
	XEvery int
	Series []chartSeries
	Kind   chartKind
	YTick  func(float64) string // writes a tick's value; plain numbers when nil
	Empty  string               // shown across the plot when every value is 0
}

// The chart's frame in viewBox units; the SVG scales to its container.
const (
	chartW, chartH                 = 720, 280
	chartLeft, chartRight          = 104, 16
	chartTop, chartBottom          = 40, 50
	chartPlotW, chartPlotH float64 = chartW - chartLeft - chartRight, chartH - chartTop - chartBottom
)

// SVG renders the chart.
func (ch chart) SVG() template.HTML {
	esc := template.HTMLEscapeString
	var b strings.Builder
	// On a phone the chart keeps a legible size and scrolls sideways; the
	// wrapper takes the focus so that a keyboard can scroll it too.
	fmt.Fprintf(&b, `<div class="chart-scroll" tabindex="0" role="group" aria-label="%s">`, esc(ch.Title))
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-labelledby="%s-t %s-d" xmlns="http://www.w3.org/2000/svg">`,
		chartW, chartH, esc(ch.ID), esc(ch.ID))
	fmt.Fprintf(&b, `<title id="%s-t">%s</title><desc id="%s-d">%s</desc>`, esc(ch.ID), esc(ch.Title), esc(ch.ID), esc(ch.Desc))

	top, ticks := ch.scale()
	yOf := func(v float64) float64 { return chartTop + chartPlotH - v/top*chartPlotH }
	tick := ch.YTick
	if tick == nil {
		tick = func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	}
	// Grid and y axis.
	b.WriteString(`<g class="axis">`)
	for _, t := range ticks {
		y := yOf(t)
		fmt.Fprintf(&b, `<line class="grid" x1="%d" x2="%d" y1="%s" y2="%s"/>`, chartLeft, chartW-chartRight, f1(y), f1(y))
		fmt.Fprintf(&b, `<text x="%d" y="%s" text-anchor="end" dominant-baseline="middle">%s</text>`, chartLeft-6, f1(y), esc(tick(t)))
	}
	fmt.Fprintf(&b, `<line class="base" x1="%d" x2="%d" y1="%s" y2="%s"/>`, chartLeft, chartW-chartRight, f1(yOf(0)), f1(yOf(0)))
	fmt.Fprintf(&b, `<text class="label" transform="translate(12 %s) rotate(-90)" text-anchor="middle">%s</text>`, f1(chartTop+chartPlotH/2), esc(ch.YLabel))
	// x labels.
	n := len(ch.X)
	band := chartPlotW / float64(max(n, 1))
	every := max(ch.XEvery, 1)
	for i, label := range ch.X {
		if i%every != 0 {
			continue
		}
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle">%s</text>`, f1(chartLeft+band*(float64(i)+0.5)), f1(chartTop+chartPlotH+16), esc(label))
	}
	fmt.Fprintf(&b, `<text class="label" x="%s" y="%d" text-anchor="middle">%s</text>`, f1(chartLeft+chartPlotW/2), chartH-8, esc(ch.XLabel))
	b.WriteString(`</g>`)

	// Legend, on the top line.
	x := float64(chartLeft)
	b.WriteString(`<g class="legend">`)
	for _, s := range ch.Series {
		if ch.Kind == chartLines {
			fmt.Fprintf(&b, `<line class="line %s" x1="%s" x2="%s" y1="14" y2="14"/>`, esc(s.Class), f1(x), f1(x+18))
		} else {
			fmt.Fprintf(&b, `<rect class="%s" x="%s" y="8" width="12" height="12"/>`, esc(s.Class), f1(x+3))
		}
		fmt.Fprintf(&b, `<text x="%s" y="14" dominant-baseline="middle">%s</text>`, f1(x+24), esc(s.Name))
		x += 24 + 7.6*float64(len([]rune(s.Name))) + 20
	}
	b.WriteString(`</g>`)

	// Data.
	b.WriteString(`<g class="data">`)
	switch ch.Kind {
	case chartStacked:
		w := band * 0.72
		for i := range n {
			base := 0.0
			for _, s := range ch.Series {
				v := value(s, i)
				if !(v > 0) { // also skips NaN (a day without data)
					continue
				}
				y0, y1 := yOf(base), yOf(base+v)
				fmt.Fprintf(&b, `<rect class="%s" x="%s" y="%s" width="%s" height="%s"><title>%s</title></rect>`,
					esc(s.Class), f1(chartLeft+band*float64(i)+(band-w)/2), f2(y1), f1(w), f2(math.Max(y0-y1, 0.5)), esc(pointText(ch, s, i)))
				base += v
			}
		}
	case chartBars:
		k := float64(max(len(ch.Series), 1))
		w := band * 0.8 / k
		for j, s := range ch.Series {
			for i := range n {
				v := value(s, i)
				if !(v > 0) { // also skips NaN (a day without data)
					continue
				}
				y := yOf(v)
				fmt.Fprintf(&b, `<rect class="%s" x="%s" y="%s" width="%s" height="%s"><title>%s</title></rect>`,
					esc(s.Class), f1(chartLeft+band*float64(i)+band*0.1+w*float64(j)), f2(y), f1(w), f2(math.Max(yOf(0)-y, 0.5)), esc(pointText(ch, s, i)))
			}
		}
	case chartLines:
		for _, s := range ch.Series {
			var pts []string
			flush := func() {
				if len(pts) > 1 {
					fmt.Fprintf(&b, `<polyline class="line %s" points="%s"/>`, esc(s.Class), strings.Join(pts, " "))
				}
				pts = pts[:0]
			}
			for i := range n {
				v := value(s, i)
				if math.IsNaN(v) {
					flush()
					continue
				}
				pts = append(pts, f1(chartLeft+band*(float64(i)+0.5))+","+f2(yOf(v)))
			}
			flush()
			for i := range n {
				v := value(s, i)
				if math.IsNaN(v) {
					continue
				}
				fmt.Fprintf(&b, `<circle class="dot %s" cx="%s" cy="%s" r="3"><title>%s</title></circle>`,
					esc(s.Class), f1(chartLeft+band*(float64(i)+0.5)), f2(yOf(v)), esc(pointText(ch, s, i)))
			}
		}
	}
	b.WriteString(`</g>`)
	if ch.allZero() && ch.Empty != "" {
		fmt.Fprintf(&b, `<text class="empty" x="%s" y="%s" text-anchor="middle">%s</text>`, f1(chartLeft+chartPlotW/2), f1(chartTop+chartPlotH/2), esc(ch.Empty))
	}
	b.WriteString(`</svg></div>`)
	return template.HTML(b.String())
}

func value(s chartSeries, i int) float64 {
	if i < len(s.Values) {
		return s.Values[i]
	}
	return math.NaN()
}

func pointText(ch chart, s chartSeries, i int) string {
	label := ""
	if i < len(ch.X) {
		label = ch.X[i]
	}
	text := ""
	if i < len(s.Texts) {
		text = s.Texts[i]
	}
	return strings.TrimSpace(label + " — " + s.Name + ": " + text)
}

func (ch chart) allZero() bool {
	for _, s := range ch.Series {
		for _, v := range s.Values {
			if v != 0 && !math.IsNaN(v) {
				return false
			}
		}
	}
	return true
}

// scale finds the top of the y axis and its ticks: about four steps of 1,
// 2, 2.5 or 5 times a power of ten.
func (ch chart) scale() (top float64, ticks []float64) {
	peak := 0.0
	for i := range len(ch.X) {
		sum := 0.0
		for _, s := range ch.Series {
			v := value(s, i)
			if math.IsNaN(v) || v < 0 {
				continue
			}
			if ch.Kind == chartStacked {
				sum += v
			} else {
				sum = math.Max(sum, v)
			}
		}
		peak = math.Max(peak, sum)
	}
	if peak <= 0 || math.IsInf(peak, 0) {
		return 1, []float64{0}
	}
	step := niceStep(peak / 4)
	top = math.Ceil(peak/step) * step
	for i := 0; float64(i)*step <= top*(1+1e-9); i++ {
		ticks = append(ticks, float64(i)*step)
	}
	return top, ticks
}

func niceStep(raw float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
func f2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// Tick writers of the usual units.

func flopsTick(v float64) string {
	n, _ := new(big.Float).SetFloat64(math.Round(v)).Int(nil)
	return estimator.HumanFLOPs(n)
}

func moneyTick(v float64) string { return formatMoney(decimal.NewFromFloat(v).Round(8)) }

func pctTick(v float64) string { return strconv.FormatFloat(v, 'f', -1, 32) + "%" }

func countTick(v float64) string { return formatCount(int64(math.Round(v))) }

// floatOf reads a decimal for geometry.
func floatOf(d decimal.Decimal) float64 {
	f, _ := d.Float64()
	return f
}
