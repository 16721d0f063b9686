package store

import "testing"

func TestBuckets(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		input, requests int64
		want            int16
	}{{1, 1, 0}, {2, 1, 1}, {3, 1, 1}, {4, 1, 2}, {1023, 1, 9}, {1024, 1, 10}, {2048, 2, 10}, {2047, 2, 9}, {5, 10, 0}, {1 << 40, 1, 40}} {
		if got := promptBucket(c.input, c.requests); got != c.want {
			t.Errorf("promptBucket(%d, %d) = %d, want %d", c.input, c.requests, got, c.want)
		}
	}
	// Bucket b holds [1.1^b − 1, 1.1^(b+1) − 1): 0 ms is bucket 0, 1 ms is
	// bucket 7 (1.1^7 − 1 = 0.949), 1,000 ms is bucket 72 (1.1^72 − 1 = 954.8).
	for _, c := range []struct {
		ms   int64
		want int16
	}{{0, 0}, {1, 7}, {1000, 72}, {-5, 0}} {
		if got := latencyBucket(c.ms); got != c.want {
			t.Errorf("latencyBucket(%d) = %d, want %d", c.ms, got, c.want)
		}
	}
}
