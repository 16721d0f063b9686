package billing

import (
	"strings"
	"testing"
)

func TestFormatMoney(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		in     string
		places int32
		want   string
	}{
		{"half rounds up", "0.125", 2, "0.13"},
		{"negative half rounds away from zero", "-0.125", 2, "-0.13"},
		{"below half rounds down", "0.1249999999", 2, "0.12"},
		{"integer half", "2.5", 0, "3"},
		{"padding", "3", 2, "3.00"},
		{"no negative zero", "-0.001", 2, "0.00"},
		{"micro-dollars", "0.0000003", 6, "0.000000"},
		{"full precision shown", "262.1425734888611018222592", 4, "262.1426"},
		{"negative places count as zero", "1234.5", -2, "1235"},
		{"large", "123456789012345678901234.5", 0, "123456789012345678901235"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := FormatMoney(d(tc.in), tc.places); got != tc.want {
				t.Errorf("FormatMoney(%s, %d) = %q, want %q", tc.in, tc.places, got, tc.want)
			}
		})
	}
}

func TestParseAmount(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want string // "" for an error
	}{
		{"0", "0"},
		{"3", "3"},
		{"0.3", "0.3"},
		{"15.000", "15"},
		{"007", "7"},
		{"-1", "-1"}, // parses; Validate reports it
		{"1e5", ""},
		{"1E5", ""},
		{"+1", ""},
		{".5", ""},
		{"5.", ""},
		{"", ""},
		{"-", ""},
		{" 1", ""},
		{"1,5", ""},
		{"NaN", ""},
		{"Infinity", ""},
		{"0x10", ""},
		{"1.2.3", ""},
		{strings.Repeat("0", 64), "0"},
		{strings.Repeat("0", 65), ""},
	} {
		got, err := parseAmount(tc.in)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("parseAmount(%q) = %s, want an error", tc.in, got)
		case tc.want != "" && err != nil:
			t.Errorf("parseAmount(%q): %v", tc.in, err)
		case tc.want != "" && !got.Equal(d(tc.want)):
			t.Errorf("parseAmount(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestPlain(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"0", "0"}, {"0.000", "0"}, {"15.000", "15"}, {"1E3", "1000"}, {"2E-5", "0.00002"}, {"-0.50", "-0.5"},
		{"0.000000000000000001", "0.000000000000000001"},
	} {
		if got := plain(d(tc.in)); got != tc.want {
			t.Errorf("plain(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestThousands(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"0": "0", "999": "999", "1000": "1,000", "1234567": "1,234,567", "-1234567.5": "-1,234,567.5",
		"123456.789": "123,456.789", "-12": "-12", "18138975835764817920": "18,138,975,835,764,817,920",
	} {
		if got := Thousands(in); got != want {
			t.Errorf("Thousands(%q) = %q, want %q", in, got, want)
		}
	}
}
