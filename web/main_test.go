package web

import (
	"flag"
	"net/http"
	"os"
	"testing"

	"github.com/flopledger/flopledger/bloat"
	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/pgtest"
	"github.com/flopledger/flopledger/quote"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// tokens is shared by the tests: loading an encoding costs real time, and a
// Counter is safe for concurrent use.
var tokens = bloat.NewCounter()

// newAPI returns the real HTTP handler over a fresh database of its own.
func newAPI(t *testing.T) http.Handler {
	t.Helper()
	st := pgtest.NewStore(t)
	models := catalog.New(st)
	return New(Options{Logger: testLogger(), Readiness: st, Quotes: quote.New(models, tokens), Models: models, Version: "test"})
}
