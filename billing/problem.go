package billing

import (
	"fmt"
	"strings"
)

// Problem is one thing wrong with an input. Field is its JSON name, dotted
// for nested fields ("prices.gpt-4o.output_per_mtok", "versions[1].effective_from");
// it is empty when the problem belongs to the input as a whole (malformed
// JSON). Model names may contain dots themselves, so a field path is for
// people to read, not to parse.
type Problem struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// ValidationError lists every problem found in an input, in a stable order
// (the input's order for JSON, sorted model names for a Plan value). Match it
// with errors.As.
type ValidationError struct {
	Problems []Problem
}

func (e ValidationError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		if p.Field == "" {
			parts[i] = p.Message
			continue
		}
		parts[i] = p.Field + ": " + p.Message
	}
	return "invalid input: " + strings.Join(parts, "; ")
}

// problems collects Problems; err returns nil when there are none.
type problems []Problem

func (p *problems) add(field, format string, a ...any) {
	*p = append(*p, Problem{Field: field, Message: fmt.Sprintf(format, a...)})
}

func (p problems) err() error {
	if len(p) == 0 {
		return nil
	}
	return ValidationError{Problems: p}
}

// join makes a dotted field path; an empty prefix adds nothing.
func join(prefix, field string) string {
	if prefix == "" {
		return field
	}
	return prefix + "." + field
}
