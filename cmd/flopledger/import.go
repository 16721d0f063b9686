package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"

	"github.com/flopledger/flopledger/bloat"
	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/importer"
	"github.com/flopledger/flopledger/usage"
)

// importCmd runs `flopledger import --format F FILE`: the same import as
// POST /v1/import, straight into the database (DATABASE_URL, or the
// embedded PostgreSQL when no server holds it), with a progress bar on a
// terminal and a summary at the end.
func importCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("flopledger import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "", "ndjson, csv, openai, anthropic, otlp or litellm")
	workload := fs.String("workload", "", "source field giving the workload, or tag:NAME (default: the format's)")
	defWorkload := fs.String("default-workload", "", "workload when that field is empty (default \"unassigned\")")
	tags := fs.String("tags", "", "comma-separated source fields copied into tags (default: the format's)")
	perRequest := fs.Int64("input-tokens-per-request", 0, "mean prompt tokens per request, for formats without request counts (anthropic)")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: flopledger import --format F [flags] FILE   (FILE - reads standard input)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	f, err := importer.ParseFormat(*format)
	if err != nil || fs.NArg() != 1 {
		if err == nil {
			err = errors.New("give exactly one FILE")
		}
		fmt.Fprintf(stderr, "flopledger import: %v\n", err)
		fs.Usage()
		return 2
	}
	o := importer.Options{Workload: *workload, DefaultWorkload: *defWorkload, TokensPerRequest: *perRequest}
	if fs.Lookup("tags") != nil && isSet(fs, "tags") {
		o.Tags = []string{}
		for _, t := range strings.Split(*tags, ",") {
			if t = strings.TrimSpace(t); t != "" {
				o.Tags = append(o.Tags, t)
			}
		}
	}
	in, size, err := openInput(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "flopledger import: %v\n", err)
		return 1
	}
	defer in.Close()

	cfg, err := loadConfig("import", nil, getenv, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "flopledger: configuration refused:\n%v\n", err)
		return 2
	}
	log := cfg.logger(io.Discard)
	db, ok := openForTool(ctx, "import", cfg, log, stderr,
		fmt.Sprintf("curl -H 'Authorization: Bearer <key>' --data-binary @%s 'http://%s/v1/import?format=%s'", fs.Arg(0), cfg.Addr, f))
	if !ok {
		return 1
	}
	defer db.close(log)
	svc := usage.NewService(db.store, catalog.New(db.store), bloat.NewCounter(), usage.Options{GroupTags: cfg.GroupTags, Logger: log})

	var r io.Reader = in
	var bar *progressbar.ProgressBar
	if f, ok := stderr.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		bar = progressbar.DefaultBytes(size, "importing "+fs.Arg(0))
		r = io.TeeReader(in, bar)
	}
	sum, err := importer.Import(ctx, r, f, o, svc, nil)
	if bar != nil {
		_ = bar.Finish()
	}
	printSummary(stdout, sum, *asJSON)
	if err != nil {
		fmt.Fprintf(stderr, "flopledger import: %v\n", err)
		if sum.Accepted > 0 {
			fmt.Fprintln(stderr, "(what was read before the error is stored; importing the file again stores nothing twice)")
		}
		return 1
	}
	if n, err := svc.Backfill(ctx); err == nil && n > 0 {
		log.Info("backfill", slog.Int("priced", n))
	}
	return 0
}

func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func openInput(path string) (io.ReadCloser, int64, error) {
	if path == "-" {
		return io.NopCloser(os.Stdin), -1, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

func printSummary(w io.Writer, s importer.Summary, asJSON bool) {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(s)
		return
	}
	fmt.Fprintf(w, "%s: %d items read: %d accepted, %d duplicates, %d skipped, %d rejected\n",
		s.Format, s.Items, s.Accepted, s.Duplicates, s.Skipped, s.RejectedN)
	for _, r := range s.Rejected {
		field := ""
		if r.Field != "" {
			field = r.Field + ": "
		}
		fmt.Fprintf(w, "  rejected %s: %s%s\n", r.Pos, field, r.Error)
	}
	if s.RejectedN > len(s.Rejected) {
		fmt.Fprintf(w, "  … and %d more\n", s.RejectedN-len(s.Rejected))
	}
}
