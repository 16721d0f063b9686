package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/flopledger/flopledger/estimator"
)

// DefaultMaxBodyBytes bounds a JSON body when Options.MaxBodyBytes is 0.
const DefaultMaxBodyBytes = 8 << 20

// readJSONBody checks the content type and reads the whole body, up to the
// limit. Its errors are *Error values ready to render.
func (s *Server) readJSONBody(c *gin.Context) ([]byte, error) {
	if ct := c.GetHeader("Content-Type"); ct != "" && ct != "application/json" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return nil, &Error{Status: http.StatusUnsupportedMediaType, Code: "unsupported_media_type",
				Message: fmt.Sprintf("Content-Type %q is not JSON; send Content-Type: application/json (with curl: --json or -H 'Content-Type: application/json')", ct)}
		}
	}
	body, err := s.readBody(c, s.maxBody)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, &Error{Status: http.StatusBadRequest, Code: "invalid_json", Message: "the body is empty; send a JSON object"}
	}
	return body, nil
}

// readBody reads the whole body, up to limit bytes (413 past it).
func (s *Server) readBody(c *gin.Context, limit int64) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, limit))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, &Error{Status: http.StatusRequestEntityTooLarge, Code: "body_too_large",
			Message: fmt.Sprintf("the body is larger than the limit of %d bytes", tooBig.Limit)}
	}
	if err != nil {
		return nil, &Error{Status: http.StatusBadRequest, Code: "bad_body", Message: "reading the body failed: " + err.Error()}
	}
	return body, nil
}

// bindJSON reads the body into v strictly: one JSON value, no unknown
// fields, every number of the type its field wants.
func (s *Server) bindJSON(c *gin.Context, v any) error {
	body, err := s.readJSONBody(c)
	if err != nil {
		return err
	}
	return decodeStrict(body, v)
}

// decodeStrict decodes one JSON value into v and turns every failure into
// an *Error that names the field and says what was wrong.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if dec.More() || dec.InputOffset() < int64(len(bytes.TrimRight(data, " \t\r\n"))) {
			return &Error{Status: http.StatusBadRequest, Code: "invalid_json", Message: "the body holds more than one JSON value"}
		}
		return nil
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return &Error{Status: http.StatusBadRequest, Code: "invalid_json",
			Message: fmt.Sprintf("the body is not valid JSON: %v (at byte %d)", syn, syn.Offset)}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &Error{Status: http.StatusBadRequest, Code: "invalid_json", Message: "the body is not valid JSON: it ends too early"}
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "(body)"
		}
		return invalid(estimator.Problem{Field: field, Message: fmt.Sprintf("must be %s, not %s", kindOf(typ.Type), describeValue(typ.Value))})
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return invalid(estimator.Problem{Field: name, Message: "is not a known field"})
	default:
		return &Error{Status: http.StatusBadRequest, Code: "invalid_json", Message: "the body could not be read as JSON: " + err.Error()}
	}
}

// invalid is the 422 for input that is JSON but not acceptable.
func invalid(ps ...estimator.Problem) *Error {
	msgs := make([]string, len(ps))
	for i, p := range ps {
		msgs[i] = strings.TrimPrefix(p.Field+": "+p.Message, ": ")
	}
	return &Error{Status: http.StatusUnprocessableEntity, Code: "invalid_request", Message: strings.Join(msgs, "; "), Details: ps}
}

func kindOf(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer (digits only, within 64 bits)"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}

func describeValue(v string) string {
	switch v {
	case "number":
		return "a number outside that range or with a fraction"
	case "string", "bool", "array", "object":
		return "a " + v
	}
	if strings.HasPrefix(v, "number ") {
		return v + " (a fraction, an exponent or out of range)"
	}
	return v
}
