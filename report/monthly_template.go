package report

// monthlyHTML is the e-mail body of the monthly report (see Monthly.HTML).
// Mail clients differ: Gmail drops <style> blocks and inline SVG, Outlook
// for Windows lays out with Word and honours table widths and bgcolor but
// little CSS. Hence tables for layout, every style inline, widths as
// attributes, and no figure that only a chart shows.
const monthlyHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light only">
<title>{{.M.Title}}</title>
</head>
<body style="margin:0;padding:0;background-color:#f3f4f6;">
<div style="display:none;max-height:0;overflow:hidden;mso-hide:all;font-size:1px;line-height:1px;color:#f3f4f6;">{{.Preheader}}</div>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="#f3f4f6" style="background-color:#f3f4f6;">
<tr><td align="center" style="padding:16px 8px;">
<table role="presentation" width="680" cellpadding="0" cellspacing="0" border="0" bgcolor="#ffffff" style="width:100%;max-width:680px;table-layout:fixed;background-color:#ffffff;border:1px solid #e5e7eb;font-family:Arial,Helvetica,sans-serif;font-size:14px;line-height:20px;color:#1f2933;">

<tr><td style="padding:24px 24px 8px 24px;">
<div style="font-size:12px;color:#616e7c;letter-spacing:1px;text-transform:uppercase;">flopledger · monthly report</div>
<h1 style="margin:4px 0 0 0;font-size:22px;line-height:28px;color:#1f2933;">{{.M.Title}}</h1>
<p style="margin:6px 0 0 0;font-size:13px;line-height:18px;color:#616e7c;">{{.Period}} · by {{.GroupLabel}} · request plan <b>{{.M.RequestPlan}}</b> vs FLOPs plan <b>{{.M.FLOPsPlan}}</b> · generated {{.M.GeneratedAt.Format "2006-01-02 15:04 UTC"}}{{if .M.LinkBase}} · <a href="{{.M.LinkBase}}" style="color:#2457c5;">open the dashboard</a>{{end}}</p>
</td></tr>

<tr><td style="padding:8px 18px;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="6" border="0">
<tr>
<td width="50%" valign="top" bgcolor="#f9fafb" style="padding:12px;background-color:#f9fafb;border:1px solid #e5e7eb;">
<div style="font-size:12px;line-height:16px;color:#616e7c;">Under the request plan <b>{{.M.RequestPlan}}</b></div>
<div style="font-size:26px;line-height:34px;font-weight:bold;" title="{{plain .M.Total.RequestCost}}">{{money .M.Total.RequestCost}}</div>
<div style="font-size:12px;line-height:16px;color:#616e7c;">{{if .M.Total.Change.RequestCostPct}}{{spct .M.Total.Change.RequestCostPct}} vs {{.Prev}}{{else}}no priced usage in {{.Prev}}{{end}}</div>
</td>
<td width="50%" valign="top" bgcolor="#f9fafb" style="padding:12px;background-color:#f9fafb;border:1px solid #e5e7eb;">
<div style="font-size:12px;line-height:16px;color:#616e7c;">Under the FLOPs plan <b>{{.M.FLOPsPlan}}</b></div>
<div style="font-size:26px;line-height:34px;font-weight:bold;" title="{{plain .M.Total.FLOPsCost}}">{{money .M.Total.FLOPsCost}}</div>
<div style="font-size:12px;line-height:16px;color:#616e7c;" title="{{flopsExact .M.Total.TotalFLOPs}}">for {{flops .M.Total.TotalFLOPs}}{{if .M.Total.Change.FLOPsPct}} ({{spct .M.Total.Change.FLOPsPct}} vs {{.Prev}}){{end}}</div>
</td>
</tr>
<tr>
<td width="50%" valign="top" bgcolor="#f9fafb" style="padding:12px;background-color:#f9fafb;border:1px solid #e5e7eb;">
<div style="font-size:12px;line-height:16px;color:#616e7c;">Difference under FLOPs billing</div>
<div style="font-size:26px;line-height:34px;font-weight:bold;{{deltaColor .M.Total.Delta}}" title="{{plain .M.Total.Delta}}">{{smoney .M.Total.Delta}}</div>
<div style="font-size:12px;line-height:16px;color:#616e7c;">{{if .M.Total.DeltaPct}}{{spct .M.Total.DeltaPct}}: FLOPs billing would cost {{if .M.Total.Delta.IsNegative}}less{{else}}more{{end}} than the request plan{{else}}no request-plan cost to compare with{{end}}</div>
</td>
<td width="50%" valign="top" bgcolor="#f9fafb" style="padding:12px;background-color:#f9fafb;border:1px solid #e5e7eb;">
<div style="font-size:12px;line-height:16px;color:#616e7c;">Revenue-neutral FLOPs price</div>
<div style="font-size:26px;line-height:34px;font-weight:bold;" title="{{with .M.Findings.RevenueNeutralPerTFLOP}}{{plain .}}{{end}}">{{perTFLOP .M.Findings.RevenueNeutralPerTFLOP}}<span style="font-size:13px;font-weight:normal;"> per TFLOP</span></div>
<div style="font-size:12px;line-height:16px;color:#616e7c;">{{with .LastFLOPs}}the plan charges ${{plain .PrefillPerTFLOP}} prefill, ${{plain .DecodePerTFLOP}} decode{{else}}the FLOPs plan has no price this month{{end}}</div>
</td>
</tr>
</table>
</td></tr>
{{if .M.Unpriced}}
<tr><td style="padding:4px 24px;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0"><tr><td bgcolor="#fffaeb" style="padding:10px 12px;background-color:#fffaeb;border-left:4px solid #b54708;font-size:13px;line-height:18px;">
<b>{{count .UnpricedRecords}} records could not be priced</b> and are left out of both bills and of every figure below.{{range .M.Unpriced}}<br>{{.Model}}: {{count .Records}} records — {{.Reason}}{{end}}
</td></tr></table>
</td></tr>
{{end}}
<tr><td style="padding:16px 24px 0 24px;">
<h2 style="margin:0;font-size:17px;line-height:24px;color:#1f2933;">Findings</h2>
{{with .M.Findings}}
{{- if .BudgetsExceeded}}
<p style="margin:10px 0 2px 0;font-weight:bold;color:#b42318;">Budgets exceeded</p>
{{range .BudgetsExceeded}}<p style="margin:0 0 2px 0;padding-left:12px;">• <b>{{.Key}}</b>: {{budget .BudgetStatus}}</p>
{{end}}{{end}}
{{- if .BudgetsAtRisk}}
<p style="margin:10px 0 2px 0;font-weight:bold;color:#b54708;">Budgets at risk</p>
{{range .BudgetsAtRisk}}<p style="margin:0 0 2px 0;padding-left:12px;">• <b>{{.Key}}</b>: {{budget .BudgetStatus}}</p>
{{end}}{{end}}
{{- if .Losers}}
<p style="margin:10px 0 2px 0;font-weight:bold;color:#b42318;">Dearer under FLOPs billing</p>
{{range .Losers}}<p style="margin:0 0 2px 0;padding-left:12px;">• <b>{{.Key}}</b>: {{money .RequestCost}} → {{money .FLOPsCost}} <span style="{{deltaColor .Delta}}">({{smoney .Delta}}, {{spct .DeltaPct}})</span></p>
{{end}}{{end}}
{{- if .Gainers}}
<p style="margin:10px 0 2px 0;font-weight:bold;color:#1a7f37;">Cheaper under FLOPs billing</p>
{{range .Gainers}}<p style="margin:0 0 2px 0;padding-left:12px;">• <b>{{.Key}}</b>: {{money .RequestCost}} → {{money .FLOPsCost}} <span style="{{deltaColor .Delta}}">({{smoney .Delta}}, {{spct .DeltaPct}})</span></p>
{{end}}{{end}}
{{- if .BloatOffenders}}
<p style="margin:10px 0 2px 0;font-weight:bold;color:#1f2933;">Prompt bloat</p>
{{range .BloatOffenders}}<p style="margin:0 0 2px 0;padding-left:12px;">• <b>{{.Key}}</b>: {{pct .BloatPct}} of its measured prompt tokens are redundant whitespace ({{count .BloatTokens}} tokens), costing {{money .BloatRequestCost}} under the request plan and {{money .BloatFLOPsCost}} under the FLOPs plan</p>
{{end}}{{end}}
{{- if not (or .BudgetsExceeded .BudgetsAtRisk .Losers .Gainers .BloatOffenders)}}
<p style="margin:10px 0 2px 0;">Nothing stands out: no priced usage changes its bill under FLOPs billing, no budget is at risk and no prompt bloat passes the threshold.</p>
{{end}}
{{- end}}
</td></tr>

<tr><td style="padding:20px 24px 0 24px;">
<h2 style="margin:0;font-size:17px;line-height:24px;color:#1f2933;">Cost by {{.GroupLabel}} under each plan</h2>
<p style="margin:4px 0 8px 0;font-size:12px;line-height:16px;color:#616e7c;"><span style="color:#9aa5b1;">■</span> request plan {{.M.RequestPlan}} &nbsp; <span style="color:#2457c5;">■</span> FLOPs plan {{.M.FLOPsPlan}}</p>
{{if .Rows}}
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0">
{{range .Rows}}<tr>
<td width="160" valign="top" style="padding:6px 8px 6px 0;font-size:13px;line-height:16px;overflow-wrap:break-word;white-space:nowrap;">{{.Key}}</td>
<td valign="top" style="padding:6px 0;">
{{if .RequestBar}}<table role="presentation" width="{{.RequestBar}}%" cellpadding="0" cellspacing="0" border="0"><tr><td height="10" bgcolor="#9aa5b1" style="height:10px;background-color:#9aa5b1;font-size:0;line-height:0;">&nbsp;</td></tr></table>{{else}}<div style="height:10px;font-size:0;line-height:0;">&nbsp;</div>{{end}}
{{if .FLOPsBar}}<table role="presentation" width="{{.FLOPsBar}}%" cellpadding="0" cellspacing="0" border="0" style="margin-top:3px;"><tr><td height="10" bgcolor="#2457c5" style="height:10px;background-color:#2457c5;font-size:0;line-height:0;">&nbsp;</td></tr></table>{{else}}<div style="height:10px;margin-top:3px;font-size:0;line-height:0;">&nbsp;</div>{{end}}
</td>
<td width="110" align="right" valign="top" style="padding:5px 0 5px 8px;font-size:12px;line-height:13px;white-space:nowrap;"><span title="{{plain .RequestCost}}">{{money .RequestCost}}</span><br><span title="{{plain .FLOPsCost}}" style="{{deltaColor .Delta}}">{{money .FLOPsCost}}</span></td>
</tr>
{{end}}</table>
{{else}}
<p style="margin:0;font-size:13px;">No priced usage this month.</p>
{{end}}
</td></tr>

<tr><td style="padding:20px 24px 0 24px;">
<h2 style="margin:0 0 8px 0;font-size:17px;line-height:24px;color:#1f2933;">Costs</h2>
<div style="overflow-x:auto;">
<table width="100%" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse;font-size:12px;line-height:16px;">
<tr bgcolor="#f3f4f6" style="background-color:#f3f4f6;color:#616e7c;">
<th align="left" width="20%" style="padding:6px;">{{.KeyHeader}}</th>
<th align="right" style="padding:6px;">Request plan</th>
<th align="right" style="padding:6px;">FLOPs plan</th>
<th align="right" style="padding:6px;">Delta</th>
<th align="right" style="padding:6px;">Delta %</th>
<th align="right" style="padding:6px;">Budget used</th>
<th align="right" style="padding:6px;">Request cost vs {{.PrevShort}}</th>
<th align="right" style="padding:6px;">FLOPs vs {{.PrevShort}}</th>
</tr>
{{range .AllRows}}<tr style="{{if .IsTotal}}font-weight:bold;background-color:#f9fafb;{{end}}">
<td style="padding:5px 6px;border-top:1px solid #e5e7eb;overflow-wrap:break-word;white-space:nowrap;">{{.Key}}</td>
<td align="right" style="padding:5px 6px;border-top:1px solid #e5e7eb;white-space:nowrap;" title="{{plain .RequestCost}}">{{money .RequestCost}}</td>
<td align="right" style="padding:5px 6px;border-top:1px solid #e5e7eb;white-space:nowrap;" title="{{plain .FLOPsCost}}">{{money .FLOPsCost}}</td>
<td align="right" style="padding:5px 6px;border-top:1px solid #e5e7eb;white-space:nowrap;{{deltaColor .Delta}}" title="{{plain .Delta}}">{{smoney .Delta}}</td>
<td align="right" style="padding:5px 6px;border-top:1px solid #e5e7eb;white-space:nowrap;{{deltaColor .Delta}}">{{spct .DeltaPct}}</td>
<td align="right" style="padding:5px 6px;border-top:1px solid #e5e7eb;white-space:nowrap;{{budgetColor .Budget}}"{{with .Budget}} title="{{budget .}}"{{end}}>{{with .Budget}}{{pct .UsedPct}}{{else}}—{{end}}</td>
<td align="right" style="padding:5px 6px;border-top:1px solid #e5e7eb;white-space:nowrap;" title="{{$.PrevShort}}: {{money .Change.PrevRequestCost}}">{{if .Change.RequestCostPct}}{{spct .Change.RequestCostPct}}{{else if .IsTotal}}—{{else}}new{{end}}</td>
<td align="right" style="padding:5px 6px;border-top:1px solid #e5e7eb;white-space:nowrap;" title="{{$.PrevShort}}: {{flopsExact .Change.PrevFLOPs}}">{{if .Change.FLOPsPct}}{{spct .Change.FLOPsPct}}{{else if .IsTotal}}—{{else}}new{{end}}</td>
</tr>
{{end}}</table>
</div>
</td></tr>

<tr><td style="padding:20px 24px 0 24px;">
<h2 style="margin:0 0 8px 0;font-size:17px;line-height:24px;color:#1f2933;">Usage and FLOPs</h2>
<div style="overflow-x:auto;">
<table width="100%" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse;font-size:12px;line-height:16px;">
<tr bgcolor="#f3f4f6" style="background-color:#f3f4f6;color:#616e7c;">
<th align="left" width="20%" style="padding:6px;">{{.KeyHeader}}</th>
<th align="right" style="padding:6px;">Requests</th>
<th align="right" style="padding:6px;">Input tokens</th>
<th align="right" style="padding:6px;">of which cached</th>
<th align="right" style="padding:6px;">Output tokens</th>
<th align="right" style="padding:6px;">Prefill</th>
<th align="right" style="padding:6px;">Decode</th>
<th align="right" style="padding:6px;">Prefill share</th>
</tr>
{{range .AllRows}}<tr style="{{if .IsTotal}}font-weight:bold;background-color:#f9fafb;{{end}}">
<td style="padding:5px 6px;border-top:1px solid #e5e7eb;overflow-wrap:break-word;white-space:nowrap;">{{.Key}}</td>
<td align="right" style="padding:5px 6px;border-top:1px solid #e5e7eb;white-space:nowrap;">{{count .Requests}}</td>
<td align="right" style="padding:5px 6px;border-top:1px solid #e5e7eb;white-space:nowrap;">{{count .InputTokens}}</td>
<td align="right" style="padding:5px 6px;border-top:1px solid #e5e7eb;white-space:nowrap;">{{count .CachedInputTokens}}</td>
<td align="right" style="padding:5px 6px;border-top:1px solid #e5e7eb;white-space:nowrap;">{{count .OutputTokens}}</td>
<td align="right" style="padding:5px 6px;border-top:1px solid #e5e7eb;white-space:nowrap;" title="{{flopsExact .PrefillFLOPs}}">{{flops .PrefillFLOPs}}</td>
<td align="right" style="padding:5px 6px;border-top:1px solid #e5e7eb;white-space:nowrap;" title="{{flopsExact .DecodeFLOPs}}">{{flops .DecodeFLOPs}}</td>
<td align="right" style="padding:5px 6px;border-top:1px solid #e5e7eb;white-space:nowrap;">{{if .PrefillShare}}<svg width="40" height="8" viewBox="0 0 100 8" preserveAspectRatio="none" role="img" aria-label="prefill {{.PrefillPct}}%" style="vertical-align:middle;"><rect width="100" height="8" fill="#f0b429"></rect><rect width="{{.PrefillPct}}" height="8" fill="#2457c5"></rect></svg> {{end}}{{share .PrefillShare}}</td>
</tr>
{{end}}</table>
</div>
<p style="margin:4px 0 0 0;font-size:11px;line-height:16px;color:#616e7c;">Prefill share: the part of the FLOPs spent reading the prompt (<span style="color:#2457c5;">■</span> prefill, <span style="color:#f0b429;">■</span> decode).</p>
</td></tr>

<tr><td style="padding:20px 24px 0 24px;">
<h2 style="margin:0 0 8px 0;font-size:17px;line-height:24px;color:#1f2933;">Prompt bloat and latency</h2>
<div style="overflow-x:auto;">
<table width="100%" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse;font-size:12px;line-height:16px;">
<tr bgcolor="#f3f4f6" style="background-color:#f3f4f6;color:#616e7c;">
<th align="left" width="20%" style="padding:6px;">{{.KeyHeader}}</th>
<th align="right" style="padding:6px;">Bloat tokens</th>
<th align="right" style="padding:6px;">of measured prompts</th>
<th align="right" style="padding:6px;">Bloat cost, request plan</th>
<th align="right" style="padding:6px;">Bloat cost, FLOPs plan</th>
<th align="right" style="padding:6px;">p50</th>
<th align="right" style="padding:6px;">p99</th>
<th align="right" style="padding:6px;">p99 / p50</th>
</tr>
{{range .AllRows}}<tr style="{{if .IsTotal}}font-weight:bold;background-color:#f9fafb;{{end}}">
<td style="padding:5px 6px;border-top:1px solid #e5e7eb;overflow-wrap:break-word;white-space:nowrap;">{{.Key}}</td>
<td align="right" style="padding:5px 6px;border-top:1px solid #e5e7eb;white-space:nowrap;">{{if .BloatInputTokens}}{{count .BloatTokens}}{{else}}—{{end}}</td>
<td align="right" style="padding:5px 6px;border-top:1px solid #e5e7eb;white-space:nowrap;" title="{{count .BloatInputTokens}} measured prompt tokens">{{pct .BloatPct}}</td>
<td align="right" style="padding:5px 6px;border-top:1px solid #e5e7eb;white-space:nowrap;" title="{{plain .BloatRequestCost}}">{{if .BloatInputTokens}}{{money .BloatRequestCost}}{{else}}—{{end}}</td>
<td align="right" style="padding:5px 6px;border-top:1px solid #e5e7eb;white-space:nowrap;" title="{{plain .BloatFLOPsCost}}; {{flopsExact .BloatFLOPs}}">{{if .BloatInputTokens}}{{money .BloatFLOPsCost}}{{else}}—{{end}}</td>
{{with .Latency}}<td align="right" style="padding:5px 6px;border-top:1px solid #e5e7eb;white-space:nowrap;" title="{{count .Records}} records with a latency">{{ms .P50MS}}</td>
<td align="right" style="padding:5px 6px;border-top:1px solid #e5e7eb;white-space:nowrap;">{{ms .P99MS}}</td>
<td align="right" style="padding:5px 6px;border-top:1px solid #e5e7eb;white-space:nowrap;">{{ratio .P99OverP50}}</td>
{{else}}<td align="right" style="padding:5px 6px;border-top:1px solid #e5e7eb;">—</td>
<td align="right" style="padding:5px 6px;border-top:1px solid #e5e7eb;">—</td>
<td align="right" style="padding:5px 6px;border-top:1px solid #e5e7eb;">—</td>
{{end}}</tr>
{{end}}</table>
</div>
</td></tr>

<tr><td style="padding:20px 24px 24px 24px;font-size:11px;line-height:16px;color:#616e7c;">
<p style="margin:0 0 6px 0;"><b>How to read this report.</b> Groups are listed by their request-plan cost, largest first. Each day's usage is priced by the plan versions in force that day (UTC days){{with .M.FLOPsPrices}}; the FLOPs plan's prices this month: {{range $i, $p := .}}{{if $i}}; {{end}}{{flopsPrice $p}}{{end}}{{end}}.</p>
<p style="margin:0 0 6px 0;">Delta = cost under the FLOPs plan − cost under the request plan, and Delta % is relative to the request-plan cost: a negative delta (green) means the group would pay less under FLOPs billing. The revenue-neutral price is the total request-plan cost divided by the total TFLOPs (prefill and decode): the one price per TFLOP at which FLOPs billing would bring in what the request plan does this month.</p>
<p style="margin:0 0 6px 0;">Amounts are in dollars, rounded to the cent (half away from zero) for display only, and "&lt;$0.01" is an amount that rounds to zero but is not zero; hover over an amount for its exact value, which the CSV and JSON keep. FLOPs are exact integers shown with an SI prefix (hover for the exact count); a TFLOP is 10<sup>12</sup> FLOPs.</p>
<p style="margin:0 0 6px 0;">Prompt bloat is the redundant whitespace in prompts, counted on the records whose prompt (or bloat count) was sent; the percentage is of those records' prompt tokens. Its request-plan cost is the bloat tokens at the model's uncached input price. Its FLOPs-plan cost is a linear share of the prefill FLOPs (prefill FLOPs × bloat tokens ÷ prompt tokens) at the prefill price: it ignores that attention grows faster than linearly with the prompt's length, so it understates what trimming long prompts saves. A group is listed as an offender from {{.BloatMinPct}}% bloat and {{count .BloatMinTokens}} bloat tokens.</p>
<p style="margin:0 0 6px 0;">Latency percentiles come from the records that reported a latency; percentiles do not add up, so the total has none. Changes compare with {{.Prev}}, priced the same way; "new" means no priced usage then. Budgets are as evaluated when the report was generated; forecasts extend the month's run rate to its end.</p>
<p style="margin:0;">The CSV and the JSON of this report carry every figure at full precision.</p>
</td></tr>

</table>
</td></tr>
</table>
</body>
</html>
`
