package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./report/ -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; run go test ./report/ -update and review the diff", path)
	}
}

func TestMonthlyGolden(t *testing.T) {
	t.Parallel()
	m, err := BuildMonthly(monthInput(t))
	if err != nil {
		t.Fatal(err)
	}
	page, err := m.HTML()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "monthly_report.html", page)
	j, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "monthly_report.json", append(j, '\n'))
}

// The JSON keeps FLOPs as exact integers (numbers) and money as exact
// decimal strings.
func TestMonthlyJSONTypes(t *testing.T) {
	t.Parallel()
	m, err := BuildMonthly(monthInput(t))
	if err != nil {
		t.Fatal(err)
	}
	j, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	var v struct {
		Total    map[string]any `json:"total"`
		Findings map[string]any `json:"findings"`
	}
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		got  any
		want any
	}{
		{"prefill_flops", v.Total["prefill_flops"], json.Number("395756789012345678")},
		{"bloat_flops", v.Total["bloat_flops"], json.Number("20007185148148518")},
		{"request_cost", v.Total["request_cost"], "12.426"},
		{"flops_cost", v.Total["flops_cost"], "13.54535183518518517"},
		{"revenue_neutral", v.Findings["revenue_neutral_price_per_tflop"], "0.000017510489513575"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
}

func TestMonthlyHTML(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		edit     func(*MonthInput)
		contains []string // in this order
		absent   []string
	}{{
		name: "the headline and the findings come first",
		edit: func(*MonthInput) {},
		contains: []string{
			"<title>flopledger monthly report — October 2026</title>",
			`title="12.426">$12.43<`, `title="13.54535183518518517">$13.55<`, `&#43;$1.12<`, `$0.00001751<`, // html/template writes + as &#43;
			"24 records could not be priced",
			"Budgets exceeded", "code-assist</b>: $6.20 of $5.00 (124.0%) under flops-tariff, forecast $6.50",
			"Budgets at risk", "Dearer under FLOPs billing", "Cheaper under FLOPs billing", "Prompt bloat",
			"Cost by workload under each plan", `width="100%"`, // support-chat's request bill is the largest
			">Costs<", `title="6.24785183518518517">$6.25<`,
			">Usage and FLOPs<", `title="333,456,789,012,345,678 FLOPs">333 PFLOPs<`,
			">Prompt bloat and latency<",
			"How to read this report", "half away from zero", "linear share of the prefill FLOPs",
		},
		absent: []string{"<a ", "open the dashboard"},
	}, {
		name: "dashboard link",
		edit: func(in *MonthInput) { in.LinkBase = "https://flopledger.example.com/reports?month=2026-10" },
		contains: []string{
			`<a href="https://flopledger.example.com/reports?month=2026-10" style="color:#2457c5;">open the dashboard</a>`,
		},
	}, {
		name: "grouped by team",
		edit: func(in *MonthInput) { in.GroupBy = "tag:team" },
		contains: []string{
			"by team", "Cost by team under each plan", `<th align="left" width="20%" style="padding:6px;">Team</th>`, "(untagged)",
		},
	}, {
		name: "an empty month still reads",
		edit: func(in *MonthInput) {
			in.Rollups, in.PrevRollups, in.Budgets, in.Latency, in.Unpriced = nil, nil, nil, nil, nil
		},
		contains: []string{"the plan charges $0.000015 prefill", "Nothing stands out", "No priced usage this month."},
		absent:   []string{"could not be priced", "<svg"},
	}, {
		name: "keys from clients are escaped",
		edit: func(in *MonthInput) {
			in.Budgets, in.Latency = nil, nil
			in.Rollups[0].Workload = `<script>alert(1)</script>`
			in.Rollups[1].Workload = `"><img src=https://evil.example/x.png>`
		},
		contains: []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&#34;&gt;&lt;img src=https://evil.example/x.png&gt;"},
		absent:   []string{"<script", "<img"},
	}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			in := monthInput(t)
			c.edit(&in)
			m, err := BuildMonthly(in)
			if err != nil {
				t.Fatal(err)
			}
			b, err := m.HTML()
			if err != nil {
				t.Fatal(err)
			}
			page := string(b)
			at := 0
			for _, s := range c.contains {
				i := strings.Index(page[at:], s)
				if i < 0 {
					t.Errorf("%q missing, or not after the previous one", s)
					continue
				}
				at += i + len(s)
			}
			for _, s := range c.absent {
				if strings.Contains(page, s) {
					t.Errorf("%q present", s)
				}
			}
			checkMailSafe(t, page, in.LinkBase)
		})
	}
}

// checkMailSafe checks what a mail client needs: well-nested markup, no
// script, no <style> block, no event handler, no external resource, no URL
// in any attribute but the dashboard link's href, and a width of at most
// 680 px. (Text may mention a URL, escaped: a client-supplied key may.)
func checkMailSafe(t *testing.T, page, linkBase string) {
	t.Helper()
	void := map[string]bool{"meta": true, "br": true, "img": true, "hr": true, "link": true, "input": true}
	forbidden := []string{"script", "style", "link", "iframe", "object", "embed", "form", "base", "frame", "video", "audio"}
	var open []string
	z := html.NewTokenizer(strings.NewReader(page))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				t.Fatalf("tokenize: %v", z.Err())
			}
			break
		}
		tok := z.Token()
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			if slices.Contains(forbidden, tok.Data) {
				t.Errorf("<%s> element", tok.Data)
			}
			for _, a := range tok.Attr {
				v := strings.ToLower(a.Val)
				switch {
				case strings.HasPrefix(a.Key, "on"):
					t.Errorf("<%s %s>: event handler", tok.Data, a.Key)
				case a.Key == "href":
					if linkBase == "" || a.Val != linkBase {
						t.Errorf("<%s href=%q>: only the dashboard link is allowed (%q)", tok.Data, a.Val, linkBase)
					}
				case a.Key == "src" || a.Key == "background" || a.Key == "srcset" || a.Key == "action" || a.Key == "xlink:href" || a.Key == "poster":
					if !strings.HasPrefix(v, "data:") {
						t.Errorf("<%s %s=%q>: external resource", tok.Data, a.Key, a.Val)
					}
				case a.Key == "style" && (strings.Contains(v, "url(") || strings.Contains(v, "expression") || strings.Contains(v, "@import")):
					t.Errorf("<%s style=%q>: loads something", tok.Data, a.Val)
				case strings.Contains(v, "http:") || strings.Contains(v, "https:") || strings.HasPrefix(v, "//"):
					t.Errorf("<%s %s=%q>: a URL outside the dashboard link", tok.Data, a.Key, a.Val)
				}
			}
			if tt == html.StartTagToken && !void[tok.Data] {
				open = append(open, tok.Data)
			}
		case html.EndTagToken:
			if len(open) == 0 || open[len(open)-1] != tok.Data {
				t.Fatalf("</%s> closes %v", tok.Data, open)
			}
			open = open[:len(open)-1]
		}
	}
	if len(open) > 0 {
		t.Errorf("unclosed %v", open)
	}
	if !strings.Contains(page, `width="680"`) || !strings.Contains(page, "max-width:680px") {
		t.Error("the body is not held to 680 px")
	}
}
