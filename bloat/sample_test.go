package bloat

import (
	"fmt"
	"strings"
)

// sampleParts are the kinds of text a prompt to an LLM gateway carries:
// instructions, prose, code in a few languages, JSON, Markdown, other
// scripts and emoji, with the odd trailing space and blank-line run.
var sampleParts = []string{
	"You are a careful assistant. Answer the question below using only the context provided.  \nIf the context does not contain the answer, say so plainly.\n\n\n",
	"The quarterly report shows revenue of $4,213,900 (up 12.5% year over year), while operating costs rose to $3.1M. " +
		"Management attributes the increase to the new data-centre lease signed on 2024-03-01, which isn't expected to pay off before Q3.\n\n",
	"```go\nfunc (s *Store) Usage(ctx context.Context, id string) (Usage, error) {\n\tconst q = `SELECT id, input_tokens, output_tokens FROM usage WHERE id = $1`\n\trows, err := s.pool.Query(ctx, q, id)\n\tif err != nil {\n\t\treturn Usage{}, fmt.Errorf(\"usage %s: %w\", id, err)\n\t}\n\treturn pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Usage])\n}\n```\n\n",
	"def moving_average(xs, k=3):\n    \"\"\"Return the k-point moving average of xs.\"\"\"\n    out = []\n    for i in range(len(xs) - k + 1):\n        out.append(sum(xs[i:i + k]) / k)   \n    return out\n\n\n\n",
	`{"model": "gpt-4o", "messages": [{"role": "user", "content": "Summarise the attached PDF"}], "temperature": 0.2, "max_tokens": 512}` + "\n",
	"| Workload | Requests | Input tokens | Output tokens |\n|---|---:|---:|---:|\n| support-chat | 120,431 | 48,112,004 | 96,220,117 |\n| code-review | 8,004 | 310,554,210 | 2,004,118 |\n\n",
	"Die Rechnung für März enthält 3 Positionen; bitte prüfen Sie die Beträge bis Freitag. Ça coûte 12 €.\n" +
		"请根据上下文回答问题。如果上下文中没有答案，请直接说明。😀👍🏽\n\n   \n\t\n",
	"    - step one: fetch the repository\n    - step two: run the tests   \n    - step three: report failures\n\n",
}

// sampleText returns about size bytes of mixed prompt text, the same every
// time, so benchmarks compare like with like.
func sampleText(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "## Section %d\n\n", i+1)
		b.WriteString(sampleParts[i%len(sampleParts)])
		b.WriteString(sampleParts[(i*5+3)%len(sampleParts)])
	}
	return b.String()
}
