// Command estimate-server serves POST /v1/estimate for the load benchmark in
// bench/estimate.sh, in one of two modes:
//
//	-mode real   flopledger's own HTTP handler (all middleware, the real
//	             quote service; catalog models need no database)
//	-mode bare   a bare gin engine whose handler answers a constant
//
// so that both are measured by the same client on the same machine.
package main

import (
	"flag"
	"log"
	"log/slog"
	"net/http"
	"os"

	"github.com/gin-gonic/gin"

	"github.com/flopledger/flopledger/bloat"
	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/quote"
	"github.com/flopledger/flopledger/web"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18181", "listen address")
	mode := flag.String("mode", "real", "real or bare")
	flag.Parse()

	var h http.Handler
	switch *mode {
	case "real":
		devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			log.Fatal(err)
		}
		// The access log is written as in production (JSON), to /dev/null.
		logger := slog.New(slog.NewJSONHandler(devnull, nil))
		models := catalog.New(nil)
		h = web.New(web.Options{Logger: logger, Quotes: quote.New(models, bloat.NewCounter()), Models: models})
	case "bare":
		gin.SetMode(gin.ReleaseMode)
		e := gin.New()
		body := []byte(`{"total_flops":370149949440}`)
		e.POST("/v1/estimate", func(c *gin.Context) { c.Data(http.StatusOK, "application/json", body) })
		h = e
	default:
		log.Fatalf("unknown -mode %q", *mode)
	}
	log.Fatal(http.ListenAndServe(*addr, h))
}
