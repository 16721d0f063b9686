package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/flopledger/flopledger/estimator"
	"github.com/flopledger/flopledger/importer"
)

// DefaultMaxImportBytes bounds an uploaded usage file.
const DefaultMaxImportBytes = 256 << 20

// Importer imports a usage file (importer.Import bound to the usage service).
type Importer interface {
	Import(ctx context.Context, r io.Reader, f importer.Format, o importer.Options) (importer.Summary, error)
}

// importUsage takes a usage file as the body: POST /v1/import?format=F
// [&workload=FIELD][&default_workload=NAME][&tags=a,b][&input_tokens_per_request=N].
// The file is streamed, never held whole.
func (s *Server) importUsage(c *gin.Context) {
	f, err := importer.ParseFormat(c.Query("format"))
	if err != nil {
		s.fail(c, invalid(estimator.Problem{Field: "format", Message: err.Error()}))
		return
	}
	o := importer.Options{Workload: c.Query("workload"), DefaultWorkload: c.Query("default_workload")}
	if v, ok := c.GetQuery("tags"); ok {
		o.Tags = []string{}
		for _, t := range strings.Split(v, ",") {
			if t = strings.TrimSpace(t); t != "" {
				o.Tags = append(o.Tags, t)
			}
		}
	}
	if v := c.Query("input_tokens_per_request"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			s.fail(c, invalid(estimator.Problem{Field: "input_tokens_per_request", Message: fmt.Sprintf("%q is not a positive integer", v)}))
			return
		}
		o.TokensPerRequest = n
	}
	body := http.MaxBytesReader(c.Writer, c.Request.Body, s.maxImportBytes)
	sum, err := s.imports.Import(c.Request.Context(), body, f, o)
	if err != nil {
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			s.fail(c, &Error{Status: http.StatusRequestEntityTooLarge, Code: "body_too_large",
				Message: fmt.Sprintf("the file is larger than the limit of %d bytes (FLOPLEDGER_MAX_IMPORT_BYTES); what came before the limit was imported: %d accepted", tooBig.Limit, sum.Accepted),
				Details: sum})
		case errors.Is(err, importer.ErrIngest) || errors.Is(err, context.Canceled):
			s.fail(c, err)
		case sum.Accepted == 0:
			s.fail(c, &Error{Status: http.StatusUnprocessableEntity, Code: "invalid_file", Message: err.Error(), Details: sum})
		default:
			s.fail(c, &Error{Status: http.StatusUnprocessableEntity, Code: "invalid_file",
				Message: err.Error() + fmt.Sprintf(" (the %d records before it were imported; fix the file and import it again: nothing is stored twice)", sum.Accepted),
				Details: sum})
		}
		return
	}
	c.JSON(http.StatusOK, sum)
}
