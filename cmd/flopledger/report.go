package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/flopledger/flopledger/budget"
	"github.com/flopledger/flopledger/report"
)

// reportCmd runs `flopledger report --month 2026-10 --format csv|json|html`:
// it makes the month's report (and stores it, as POST /v1/reports does) and
// prints it.
func reportCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("flopledger report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	month := fs.String("month", "", "the month, YYYY-MM (default: the previous month)")
	format := fs.String("format", "csv", "csv, json or html")
	reqPlan := fs.String("request-plan", "", "request plan (default FLOPLEDGER_REQUEST_PLAN)")
	flopsPlan := fs.String("flops-plan", "", "FLOPs plan (default FLOPLEDGER_FLOPS_PLAN)")
	groupBy := fs.String("group-by", "workload", "workload or tag:NAME")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *format != "csv" && *format != "json" && *format != "html" {
		fmt.Fprintf(stderr, "flopledger report: --format %q: want csv, json or html\n", *format)
		return 2
	}
	cfg, err := loadConfig("report", nil, getenv, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "flopledger: configuration refused:\n%v\n", err)
		return 2
	}
	now := time.Now()
	if *month == "" {
		*month = report.PreviousMonth(now, cfg.ReportTZ).Time().Format("2006-01")
	}
	log := cfg.logger(io.Discard)
	db, ok := openForTool(ctx, "report", cfg, log, stderr,
		fmt.Sprintf(`curl -H 'Authorization: Bearer <key>' --json '{"month": "%s"}' http://%s/v1/reports`, *month, cfg.Addr))
	if !ok {
		return 1
	}
	defer db.close(log)
	maker := report.NewMaker(db.store, report.MakerOptions{Budgets: budgetSource(budget.New(db.store)), GroupTags: cfg.GroupTags,
		RequestPlan: cfg.RequestPlan, FLOPsPlan: cfg.FLOPsPlan, LinkBase: cfg.PublicURL})
	st, _, err := maker.Make(ctx, report.MakeRequest{Month: *month, RequestPlan: *reqPlan, FLOPsPlan: *flopsPlan, GroupBy: *groupBy}, "monthly", now)
	if err != nil {
		fmt.Fprintf(stderr, "flopledger report: %v\n", err)
		return 1
	}
	switch *format {
	case "csv":
		io.WriteString(stdout, st.CSV)
	case "html":
		io.WriteString(stdout, st.HTML)
	default:
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(st)
	}
	return 0
}
