package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEstimateCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	arch := filepath.Join(dir, "tiny.json")
	// d=8, one layer, two heads of 4, gated MLP 16, vocabulary 10: 3 prompt
	// tokens and 2 output tokens cost 4,192 + 1,568 = 5,760 FLOPs (worked
	// out in web/api_estimate_test.go).
	if err := os.WriteFile(arch, []byte(`{"d_model": 8, "n_layers": 1, "n_heads": 2, "d_ff": 16, "mlp": "gated", "vocab": 10}`), 0o644); err != nil {
		t.Fatal(err)
	}
	noEnv := func(string) string { return "" }
	var out, errb bytes.Buffer
	code := estimateCmd(context.Background(), []string{"--architecture-file", arch, "--input-tokens", "3", "--output-tokens", "2"}, noEnv, &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "5,760 FLOPs") || !strings.Contains(out.String(), "4,192") {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}

	prompt := filepath.Join(dir, "prompt.txt")
	_ = os.WriteFile(prompt, []byte("hello   \n\n\n\nworld"), 0o644)
	out.Reset()
	code = estimateCmd(context.Background(), []string{"--model", "gpt2", "--prompt-file", prompt, "--output-tokens", "5", "--json"}, noEnv, &out, &errb)
	var res struct {
		Bloat struct {
			BloatTokens int64 `json:"bloat_tokens"`
		} `json:"bloat"`
		TotalFLOPs json.Number `json:"total_flops"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); code != 0 || err != nil || res.Bloat.BloatTokens <= 0 || res.TotalFLOPs == "" {
		t.Fatalf("--json: exit %d %v\n%s%s", code, err, out.String(), errb.String())
	}

	errb.Reset()
	code = estimateCmd(context.Background(), []string{"--model", "lama-3.1-8b", "--input-tokens", "3", "--output-tokens", "2"}, noEnv, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "llama-3.1-8b") {
		t.Fatalf("unknown model must suggest the closest: exit %d %s", code, errb.String())
	}
	errb.Reset()
	code = estimateCmd(context.Background(), []string{"--model", "gpt2", "--input-tokens", "x", "--output-tokens", "2"}, noEnv, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "--input-tokens") {
		t.Fatalf("bad flag value: exit %d %s", code, errb.String())
	}
}

// TestImportCommand imports a file twice into a real PostgreSQL: the
// second run finds only duplicates.
func TestImportCommand(t *testing.T) {
	t.Parallel()
	db := startTestDB(t)
	env := map[string]string{"DATABASE_URL": db}
	getenv := func(k string) string { return env[k] }
	file := "../../importer/testdata/ndjson_records.ndjson"
	var out, errb bytes.Buffer
	if code := importCmd(context.Background(), []string{"--format", "ndjson", file}, getenv, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	first := out.String()
	if !strings.Contains(first, " accepted, 0 duplicates") || strings.Contains(first, ": 0 accepted") {
		t.Fatalf("first import: %s", first)
	}
	out.Reset()
	if code := importCmd(context.Background(), []string{"--format", "ndjson", "--json", file}, getenv, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var sum struct{ Accepted, Duplicates int }
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil || sum.Accepted != 0 || sum.Duplicates == 0 {
		t.Fatalf("second import: %s (%v)", out.String(), err)
	}
	errb.Reset()
	if code := importCmd(context.Background(), []string{"--format", "xls", file}, getenv, &out, &errb); code != 2 || !strings.Contains(errb.String(), "ndjson") {
		t.Fatalf("unknown format: %d %s", code, errb.String())
	}
}
