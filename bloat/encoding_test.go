package bloat

import (
	"strings"
	"testing"
)

func TestParseEncoding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    Encoding
		wantErr bool
	}{
		{name: "empty is the default", in: "", want: O200kBase},
		{name: "o200k_base", in: "o200k_base", want: O200kBase},
		{name: "cl100k_base", in: "cl100k_base", want: Cl100kBase},
		{name: "case matters", in: "O200K_BASE", wantErr: true},
		{name: "model names are not encodings", in: "gpt-4o", wantErr: true},
		{name: "unsupported encoding", in: "p50k_base", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseEncoding(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("ParseEncoding(%q) = %q, want an error", tt.in, got)
				}
				// The message is shown to API users: it must say what is valid.
				for _, e := range Encodings() {
					if !strings.Contains(err.Error(), string(e)) {
						t.Errorf("error %q does not name %s", err, e)
					}
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseEncoding(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}
