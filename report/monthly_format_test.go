package report

import (
	"testing"
)

func TestMonthlyFormat(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, got, want string
	}{
		{"money rounds half away from zero", money(dec("1234.565")), "$1,234.57"},
		{"negative money", money(dec("-0.125")), "-$0.13"},
		{"money below a cent", money(dec("0.004")), "<$0.01"},
		{"negative money below a cent", money(dec("-0.004")), "-<$0.01"},
		{"zero money", money(dec("0")), "$0.00"},
		{"big money", money(dec("1234567890.1")), "$1,234,567,890.10"},
		{"signed gain", signedMoney(dec("3.415")), "+$3.42"},
		{"signed loss", signedMoney(dec("-2.3")), "-$2.30"},
		{"signed zero", signedMoney(dec("0")), "$0.00"},
		{"signed crumb", signedMoney(dec("0.0005")), "+<$0.01"},
		{"level", pct(decp("91.50")), "91.5%"},
		{"no level", pct(nil), "—"},
		{"change up", signedPct(decp("120.8502")), "+120.9%"},
		{"change down", signedPct(decp("-23.9833")), "-24.0%"},
		{"no change", signedPct(decp("0.0400")), "0.0%"},
		{"big change", signedPct(decp("12345.6")), "+12,345.6%"},
		{"share", share(decp("0.971450")), "97.1%"},
		{"price", perTFLOP(decp("0.000017510489513575")), "$0.00001751"},
		{"price keeps 4 significant digits", perTFLOP(decp("0.000026202185792350")), "$0.00002620"},
		{"large price", perTFLOP(decp("12.5")), "$12.50"},
		{"zero price", perTFLOP(decp("0")), "$0"},
		{"count", count(1234567), "1,234,567"},
		{"small count", count(999), "999"},
		{"flops", flops("343256789012345678"), "343 PFLOPs"},
		{"exact flops", flopsExact("343256789012345678"), "343,256,789,012,345,678 FLOPs"},
		{"latency", ms(1890), "1,890 ms"},
		{"short latency", ms(12.34), "12.3 ms"},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, c.got, c.want)
		}
	}
}
