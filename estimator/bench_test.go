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

func BenchmarkParseHFConfig(b *testing.B) {
	data := readConfig(b, "qwen3-30b-a3b")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseHFConfig(data); err != nil {
			b.Fatal(err)
		}
	}
}
