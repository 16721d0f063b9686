package web

import (
	"log/slog"
	"os"
)

// testLogger discards the error logs that these tests provoke on purpose.
func testLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError + 4}))
}
