package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/bloat"
	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/estimator"
	"github.com/flopledger/flopledger/quote"
	"github.com/flopledger/flopledger/store"
)

// estimateCmd runs `flopledger estimate`: the same estimate as
// POST /v1/estimate, printed as a table (or the API's JSON with --json).
// Built-in models and architecture files work offline; a registered model
// needs DATABASE_URL (the embedded PostgreSQL belongs to `serve`).
func estimateCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("flopledger estimate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	model := fs.String("model", "", "catalog or registered model name")
	archFile := fs.String("architecture-file", "", "JSON file with an architecture (the API's form)")
	hfFile := fs.String("hf-config", "", "a Hugging Face config.json")
	input := fs.String("input-tokens", "", "prompt tokens (total over --requests)")
	promptFile := fs.String("prompt-file", "", "file holding one request's prompt: counted and analysed for bloat (- for stdin)")
	tokenizer := fs.String("tokenizer", "", "o200k_base (default) or cl100k_base, for --prompt-file")
	cached := fs.Int64("cached-input-tokens", 0, "prompt tokens served from a prefix cache (total)")
	output := fs.Int64("output-tokens", 0, "generated tokens (total)")
	requests := fs.Int64("requests", 1, "requests in the bucket")
	asJSON := fs.Bool("json", false, "print the API's JSON")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	req := quote.Request{Model: *model, Tokenizer: *tokenizer, CachedInputTokens: *cached, OutputTokens: output, Requests: requests}
	if *input != "" {
		n, err := strconv.ParseInt(*input, 10, 64)
		if err != nil {
			fmt.Fprintf(stderr, "flopledger estimate: --input-tokens %q is not an integer\n", *input)
			return 2
		}
		req.InputTokens = &n
	}
	if err := readInputs(&req, *archFile, *hfFile, *promptFile); err != nil {
		fmt.Fprintf(stderr, "flopledger estimate: %v\n", err)
		return 2
	}

	var st catalog.Store
	if url := getenv("DATABASE_URL"); url != "" && req.Model != "" {
		if _, ok := estimator.Lookup(req.Model); !ok {
			s, err := store.Open(ctx, url, store.Options{})
			if err != nil {
				fmt.Fprintf(stderr, "flopledger estimate: %v\n", err)
				return 1
			}
			defer s.Close()
			st = s
		}
	}
	res, err := quote.New(catalog.New(st), bloat.NewCounter()).Estimate(ctx, req)
	if err != nil {
		fmt.Fprintf(stderr, "flopledger estimate: %v\n", err)
		var nf *catalog.NotFoundError
		if errors.As(err, &nf) && st == nil {
			fmt.Fprintln(stderr, "(registered models are found with DATABASE_URL set, or through POST /v1/estimate)")
		}
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(res)
		return 0
	}
	printEstimate(stdout, res)
	return 0
}

func readInputs(req *quote.Request, archFile, hfFile, promptFile string) error {
	if archFile != "" {
		b, err := os.ReadFile(archFile)
		if err != nil {
			return err
		}
		var a estimator.Architecture
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&a); err != nil {
			return fmt.Errorf("%s: %v", archFile, err)
		}
		req.Architecture = &a
	}
	if hfFile != "" {
		b, err := os.ReadFile(hfFile)
		if err != nil {
			return err
		}
		req.HFConfig = b
	}
	if promptFile != "" {
		var b []byte
		var err error
		if promptFile == "-" {
			b, err = io.ReadAll(io.LimitReader(os.Stdin, quote.MaxPromptBytes+1))
		} else {
			b, err = os.ReadFile(promptFile)
		}
		if err != nil {
			return err
		}
		p := string(b)
		req.Prompt = &p
	}
	return nil
}

func printEstimate(w io.Writer, r quote.Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "model\t%s (%s)\n", r.Model, r.ModelSource)
	fmt.Fprintf(tw, "tokens\tinput %s, cached %s, output %s, over %s request(s)\n",
		billing.Thousands(strconv.FormatInt(r.InputTokens, 10)), billing.Thousands(strconv.FormatInt(r.CachedInputTokens, 10)),
		billing.Thousands(strconv.FormatInt(r.OutputTokens, 10)), billing.Thousands(strconv.FormatInt(r.Requests, 10)))
	fmt.Fprintln(tw, "\t\t")
	fmt.Fprintln(tw, "component\tprefill FLOPs\tdecode FLOPs")
	for _, c := range estimator.Components {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c, billing.Thousands(r.Breakdown.Prefill[c].String()), billing.Thousands(r.Breakdown.Decode[c].String()))
	}
	fmt.Fprintf(tw, "total\t%s\t%s\n", billing.Thousands(r.PrefillFLOPs.String()), billing.Thousands(r.DecodeFLOPs.String()))
	fmt.Fprintf(tw, "\t%s\t%s\n", r.Human.Prefill, r.Human.Decode)
	fmt.Fprintln(tw, "\t\t")
	fmt.Fprintf(tw, "TOTAL\t%s FLOPs\t(%s)\n", billing.Thousands(r.TotalFLOPs.String()), r.Human.Total)
	if b := r.Bloat; b != nil {
		fmt.Fprintln(tw, "\t\t")
		fmt.Fprintf(tw, "bloat\t%d of %d prompt tokens are redundant whitespace (ratio %s, %s)\n", b.BloatTokens, b.Tokens, b.BloatRatio, b.Tokenizer)
		fmt.Fprintf(tw, "\tthey cost %s FLOPs of prefill (%s), %s FLOPs in all\n", billing.Thousands(b.PrefillFLOPs.String()), estimator.HumanFLOPs(b.PrefillFLOPs), billing.Thousands(b.TotalFLOPs.String()))
	}
	tw.Flush()
}
