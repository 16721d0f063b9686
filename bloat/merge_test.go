package bloat

import (
	"slices"
	"strings"
	"testing"
)

// TestHeapMergeMatchesScan checks the O(n log n) merge against tiktoken's
// own algorithm on pieces of every length around the switch-over.
func TestHeapMergeMatchesScan(t *testing.T) {
	t.Parallel()
	b, _, err := counter.encoding(O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	pieces := []string{
		strings.Repeat(" ", 300),
		strings.Repeat("a", 257),
		strings.Repeat("ab", 150),
		strings.Repeat("supercalifragilisticexpialidocious", 9),
		strings.Repeat("日本語のテキスト", 20),
		strings.Repeat("=-", 99),
		strings.Repeat("\n \t", 70),
		sampleText(400),
	}
	for _, p := range pieces {
		for n := 1; n <= len(p); n += 7 {
			piece := p[:n]
			var m1, m2 mergeScratch
			scan := slices.Clone(m1.scan(b.ranks, piece))
			heap := m2.heapMerge(b.ranks, piece)
			if !slices.Equal(scan, heap) {
				t.Fatalf("piece %q: scan %v, heap %v", piece, scan, heap)
			}
		}
	}
}
