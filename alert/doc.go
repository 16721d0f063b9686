// Package alert evaluates the token-bloat, prompt-size, FLOPs and budget
// thresholds of MISSION.md ("Token-bloat alerts") per workload, keeps one
// alert per (workload, kind, window), and moves alerts through
// open → acknowledged → resolved.
//
// # Kinds
//
//   - whitespace_bloat: bloat tokens ≥ 5% of the input tokens of the
//     records whose bloat is known, over the window;
//   - prompt_inflation: mean input tokens per request over the window ≥ 2×
//     the mean of the 7 days before;
//   - flops_surge: FLOPs of the window ≥ 10× the daily mean of the 7 days
//     before;
//   - budget_at_risk: the month's forecast ≥ 100% of the budget (and not
//     exceeded yet: budget_exceeded supersedes it);
//   - budget_exceeded: spent ≥ 100% of the budget.
//
// Thresholds and minimum-volume floors are configured per workload (Config)
// and compared exactly, in decimal, by cross-multiplication: no float and no
// rounded ratio decides anything. A floor not met means the kind does not
// fire (and, for an open alert, counts as cleared): a workload that went
// from 3 to 9 requests pages no one.
//
// # Windows
//
// The data kinds read the daily rollups (usage_daily, UTC days), never raw
// records, so their windows are whole UTC days. "The last 24 h" is read as
// the last complete UTC day before now, D = [midnight(now) − 24 h,
// midnight(now)), and the baseline as the 7 days before D. A sliding 24 h
// would need raw records, which retention drops; with an hourly schedule a
// day is evaluated within an hour of its end, and evaluated again (without
// a second alert) on every later run of that day, which also picks up late
// records. A budget alert's window is the budget's month.
//
// # Lifecycle
//
// Evaluate is the hourly job (the caller's cron calls it) and the on-demand
// evaluation. The store saves an evaluation in one transaction under an
// advisory lock, and the schema backs it with unique keys, so two instances
// evaluating at once open each alert once and only one of them returns it
// for delivery. While an alert is open or acknowledged, a later window that
// still crosses its threshold refreshes its window end, evidence, cost and
// fix instead of opening another. A data alert resolves itself (resolved_by
// "auto") once a whole later window does not cross; a budget alert when its
// month is over or its budget status no longer crosses.
//
// # Cost
//
// Every alert says what its window cost, in FLOPs and in money under the
// configured request plan and FLOPs plan (by the plan version in force on
// each day). A plan that does not exist, or a model a plan does not price,
// leaves that part out and says so in Cost.Missing; it never stops an
// alert. Shares of FLOPs are linear in tokens (see each kind's Cost.Method).
package alert
