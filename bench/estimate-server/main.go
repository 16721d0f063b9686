// Command estimate-server is the baseline of bench/estimate.sh: a bare gin
// engine whose POST /v1/estimate handler answers a constant, with no
// middleware. The script measures flopledger's own service against it.
package main

import (
	"flag"
	"log"
	"net/http"

	"github.com/gin-gonic/gin"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18183", "listen address")
	flag.Parse()
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	body := []byte(`{"total_flops":370149949440}`)
	e.POST("/v1/estimate", func(c *gin.Context) { c.Data(http.StatusOK, "application/json", body) })
	log.Fatal(http.ListenAndServe(*addr, e))
}
