package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestBufferedLogHoldsInfoWritesWarningsAtOnce: information lines reach
// stderr within the flush interval, a warning at once and after the lines
// logged before it, and Close writes out the rest.
func TestBufferedLogHoldsInfoWritesWarningsAtOnce(t *testing.T) {
	t.Parallel()
	stderr := &lockedBuffer{b: new(bytes.Buffer)}
	read := func() string { stderr.mu.Lock(); defer stderr.mu.Unlock(); return stderr.b.String() }
	out := newBufferedLog(stderr)
	log := slog.New(flushOnWarn{slog.NewJSONHandler(out, nil), out}).With("component", "test")
	log.Info("first")
	log.Warn("trouble")
	if got := read(); !strings.Contains(got, `"msg":"first"`) || strings.Index(got, "first") > strings.Index(got, "trouble") {
		t.Fatalf("a warning must be written at once, after what came before it: %q", got)
	}
	log.Info("later")
	deadline := time.Now().Add(10 * logFlushEvery)
	for !strings.Contains(read(), "later") {
		if time.Now().After(deadline) {
			t.Fatalf("an information line was not written within %s: %q", 10*logFlushEvery, read())
		}
		time.Sleep(logFlushEvery / 10)
	}
	log.Info("last")
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(read(), `"msg":"last","component":"test"`) {
		t.Fatalf("Close must write out the buffer: %q", read())
	}
}
