// Command flopledger is the FLOPs cost accounting service and its tools.
//
//	flopledger [serve] [flags]   run the HTTP service (the default)
//	flopledger migrate [flags]   apply pending database migrations and exit
//	flopledger estimate [flags]  estimate a request's FLOPs and its prompt's bloat
//	flopledger import [flags] F  import a usage file (ndjson, csv, openai, anthropic, otlp, litellm)
//	flopledger report [flags]    make a month's report and print it (csv, json or html)
//	flopledger version           print the version
//
// Settings come from the environment, with flags as overrides; see the
// README or `flopledger serve -h`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// run dispatches a subcommand and returns the process exit code: 0 on
// success, 1 on a failure while running, 2 on a usage or configuration error.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "version":
		fmt.Fprintln(stdout, "flopledger", fullVersion())
		return 0
	case "help":
		printUsage(stdout)
		return 0
	case "estimate":
		return estimateCmd(ctx, args, getenv, stdout, stderr)
	case "import":
		return importCmd(ctx, args, getenv, stdout, stderr)
	case "report":
		return reportCmd(ctx, args, getenv, stdout, stderr)
	case "serve", "migrate":
	default:
		fmt.Fprintf(stderr, "flopledger: unknown command %q\n\n", cmd)
		printUsage(stderr)
		return 2
	}

	cfg, err := loadConfig(cmd, args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "flopledger: configuration refused:\n%v\n", err)
		return 2
	}
	out := newBufferedLog(stderr)
	defer out.Close()
	log := slog.New(flushOnWarn{cfg.logger(out).Handler(), out})
	switch cmd {
	case "migrate":
		err = migrate(ctx, cfg, log)
	default:
		err = serve(ctx, cfg, log, stdout)
	}
	if err != nil {
		log.Error("flopledger stopped", "command", cmd, "error", err.Error())
		fmt.Fprintf(stderr, "flopledger %s: %v\n", cmd, err)
		return 1
	}
	return 0
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, `usage: flopledger [command] [flags]

commands:
  serve     run the HTTP service (default)
  migrate   apply pending database migrations and exit
  estimate  estimate a request's FLOPs (flopledger estimate -h)
  import    import a usage file (flopledger import -h)
  report    make a month's report: --month 2026-10 --format csv|json|html
  version   print the version

Run "flopledger serve -h" for the settings.
`)
}

// fullVersion adds the VCS revision when the build recorded one.
func fullVersion() string {
	v := version
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " (" + s.Value[:12] + ")"
			}
		}
	}
	return v
}
