package main

import (
	"context"
	"io"
	"log/slog"
	"time"

	"go.uber.org/zap/zapcore"
)

// The service logs one line per HTTP request. Written straight to stderr
// that is a system call per request, a tenth of a busy estimate API's CPU.
// Like nginx's "access_log … buffer= flush=", lines are gathered in memory
// (zap's BufferedWriteSyncer) and written at most logFlushEvery apart;
// a warning or an error is written at once, with everything before it, and
// the buffer is written out when the process ends normally. A SIGKILL can
// lose the last logFlushEvery of information lines, never a warning.
const (
	logBufferSize = 64 << 10
	logFlushEvery = 100 * time.Millisecond
)

// bufferedLog is the log output of serve and migrate.
type bufferedLog struct {
	ws *zapcore.BufferedWriteSyncer
}

func newBufferedLog(w io.Writer) *bufferedLog {
	return &bufferedLog{ws: &zapcore.BufferedWriteSyncer{WS: zapcore.AddSync(w), Size: logBufferSize, FlushInterval: logFlushEvery}}
}

func (b *bufferedLog) Write(p []byte) (int, error) { return b.ws.Write(p) }

// Close writes what is buffered and stops the flushing goroutine.
func (b *bufferedLog) Close() error { return b.ws.Stop() }

// flushOnWarn wraps a handler so that a record at Warn or above is written
// out at once: problems are never held back.
type flushOnWarn struct {
	slog.Handler
	out *bufferedLog
}

func (h flushOnWarn) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		_ = h.out.ws.Sync()
	}
	return err
}

func (h flushOnWarn) WithAttrs(as []slog.Attr) slog.Handler {
	return flushOnWarn{h.Handler.WithAttrs(as), h.out}
}

func (h flushOnWarn) WithGroup(name string) slog.Handler {
	return flushOnWarn{h.Handler.WithGroup(name), h.out}
}
