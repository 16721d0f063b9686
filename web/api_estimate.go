package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/gin-gonic/gin"

	"github.com/flopledger/flopledger/quote"
)

// MaxBatchItems bounds POST /v1/estimate/batch.
const MaxBatchItems = 1000

func (s *Server) estimate(c *gin.Context) {
	var req quote.Request
	if err := s.bindJSON(c, &req); err != nil {
		s.fail(c, err)
		return
	}
	res, err := s.quotes.Estimate(c.Request.Context(), req)
	if err != nil {
		s.fail(c, err)
		return
	}
	buf := estimateBuffers.Get().(*[]byte)
	*buf = res.AppendJSON((*buf)[:0])
	c.Data(http.StatusOK, "application/json; charset=utf-8", *buf)
	if cap(*buf) <= 64<<10 { // a huge prompt's spans are not kept around
		estimateBuffers.Put(buf)
	}
}

// estimateBuffers recycles the estimate's response buffer: it is written
// to the connection before the handler returns, so it can be reused.
var estimateBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// estimateBatch answers an array with an array of the same length: each
// item is an estimate or, in its place, {"error": {...}} as a single
// estimate would have answered it. One bad item spoils nothing else.
func (s *Server) estimateBatch(c *gin.Context) {
	body, err := s.readJSONBody(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	var items []json.RawMessage
	if err := decodeStrict(body, &items); err != nil {
		s.fail(c, err)
		return
	}
	if len(items) > MaxBatchItems {
		s.fail(c, &Error{Status: http.StatusRequestEntityTooLarge, Code: "batch_too_large",
			Message: fmt.Sprintf("the batch has %d items; the limit is %d", len(items), MaxBatchItems)})
		return
	}
	out := make([]any, len(items))
	for i, raw := range items {
		var req quote.Request
		err := decodeStrict(raw, &req)
		if err == nil {
			var res quote.Result
			res, err = s.quotes.Estimate(c.Request.Context(), req)
			if err == nil {
				out[i] = res
				continue
			}
		}
		e := domainError(err)
		if e == nil {
			s.fail(c, err) // a store failure fails the batch: retrying it is safe
			return
		}
		out[i] = gin.H{"error": e}
	}
	c.JSON(http.StatusOK, out)
}
