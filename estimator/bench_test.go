package estimator

import "testing"

func BenchmarkCompute(b *testing.B) {
	cases := []struct {
		name  string
		model string
		req   Request
	}{
		{"small/llama-3.1-8b", "llama-3.1-8b", Request{InputTokens: 1200, CachedInputTokens: 800, OutputTokens: 350}},
		{"moe/qwen3-30b-a3b-bucket", "qwen3-30b-a3b", Request{InputTokens: 123_457, CachedInputTokens: 50_000, OutputTokens: 9_999, Requests: 97}},
		{"huge/llama-3.1-405b-2M-tokens-1M-requests", "llama-3.1-405b",
			Request{InputTokens: 2_000_000 * 1_000_000, CachedInputTokens: 500_000 * 1_000_000, OutputTokens: 300*1_000_000 + 1, Requests: 1_000_000}},
	}
	for _, c := range cases {
		arch := mustLookup(b, c.model).Architecture
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Compute(arch, c.req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// preparedCases are the estimate API's typical request, an ingest bucket on
// a mixture of experts, and a huge bucket on the largest catalogued model.
func preparedCases(b *testing.B) []struct {
	name string
	p    *Prepared
	req  Request
} {
	prepare := func(model string) *Prepared {
		p, err := Prepare(mustLookup(b, model).Architecture)
		if err != nil {
			b.Fatal(err)
		}
		return p
	}
	return []struct {
		name string
		p    *Prepared
		req  Request
	}{
		{"small/llama-3.1-8b", prepare("llama-3.1-8b"), Request{InputTokens: 1500, OutputTokens: 300}},
		{"moe/qwen3-30b-a3b-bucket", prepare("qwen3-30b-a3b"), Request{InputTokens: 123_457, CachedInputTokens: 50_000, OutputTokens: 9_999, Requests: 97}},
		{"huge/llama-3.1-405b-2M-tokens-1M-requests", prepare("llama-3.1-405b"),
			Request{InputTokens: 2_000_000 * 1_000_000, CachedInputTokens: 500_000 * 1_000_000, OutputTokens: 300*1_000_000 + 1, Requests: 1_000_000}},
	}
}

func BenchmarkPreparedCompute(b *testing.B) {
	for _, c := range preparedCases(b) {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.p.Compute(c.req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// The same inputs forced through the big path, which only architectures
	// far wider than any catalogued model reach (fast.go).
	for _, c := range preparedCases(b) {
		b.Run("big-path/"+c.name, func(b *testing.B) {
			b.ReportAllocs()
			bk := bucketOf(c.req)
			for b.Loop() {
				c.p.exact.estimate(bk)
			}
		})
	}
}

func BenchmarkPreparedTotals(b *testing.B) {
	for _, c := range preparedCases(b) {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := c.p.Totals(c.req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkPrepare(b *testing.B) {
	arch := mustLookup(b, "qwen3-30b-a3b").Architecture
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Prepare(arch); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseHFConfig(b *testing.B) {
	data := readConfig(b, "qwen3-30b-a3b")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseHFConfig(data); err != nil {
			b.Fatal(err)
		}
	}
}
