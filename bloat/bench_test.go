package bloat

import (
	"runtime"
	"testing"
)

// BenchmarkCount measures tokenising ~100 KB of mixed prose and code;
// -bench prints MB/s. The vocabulary is loaded before the timer starts.
func BenchmarkCount(b *testing.B) {
	text := sampleText(100 << 10)
	for _, enc := range Encodings() {
		b.Run(string(enc), func(b *testing.B) {
			var c Counter
			if err := c.Load(enc); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Count(enc, text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCountPadding measures the worst case for BPE: one piece of 100 KB
// (a run of spaces inside a line), which a quadratic merge cannot finish in
// reasonable time.
func BenchmarkCountPadding(b *testing.B) {
	text := "a" + spaces(100<<10) + "b"
	var c Counter
	if err := c.Load(O200kBase); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := c.Count(O200kBase, text); err != nil {
			b.Fatal(err)
		}
	}
}

func spaces(n int) string {
	s := make([]byte, n)
	for i := range s {
		s[i] = ' '
	}
	return string(s)
}

func BenchmarkNormalize(b *testing.B) {
	text := sampleText(100 << 10)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Normalize(text)
	}
}

func BenchmarkAnalyze(b *testing.B) {
	text := sampleText(100 << 10)
	var c Counter
	if err := c.Load(O200kBase); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Analyze(O200kBase, text); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad measures what a Counter pays on first use of an encoding:
// time per op, and the heap it keeps, reported as retained-MiB.
func BenchmarkLoad(b *testing.B) {
	for _, enc := range Encodings() {
		b.Run(string(enc), func(b *testing.B) {
			var retained uint64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				c := new(Counter)
				if err := c.Load(enc); err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				retained = after.HeapAlloc - before.HeapAlloc
				runtime.KeepAlive(c)
			}
			b.ReportMetric(float64(retained)/(1<<20), "retained-MiB")
		})
	}
}
