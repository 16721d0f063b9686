package web

import "github.com/gin-gonic/gin"

// contentSecurityPolicy allows only the service's own assets: no inline
// script or style, no framing, forms posting only here.
const contentSecurityPolicy = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// reportPolicy is for a report's mail HTML, whose styles are inline by
// necessity (mail clients drop style sheets): it may load nothing at all.
const reportPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; base-uri 'none'"

// securityHeaders sets the headers every answer carries. The keys are
// written in canonical form and the values built once: Header.Set would
// canonicalise and allocate four times per request. The value slices are
// shared, which is safe because net/http only reads them and a later Set or
// Add replaces or copies them (each has capacity 1).
func securityHeaders() gin.HandlerFunc {
	csp, nosniff := []string{contentSecurityPolicy}, []string{"nosniff"}
	deny, noReferrer := []string{"DENY"}, []string{"no-referrer"}
	return func(c *gin.Context) {
		h := c.Writer.Header()
		h["Content-Security-Policy"] = csp
		h["X-Content-Type-Options"] = nosniff
		h["X-Frame-Options"] = deny
		h["Referrer-Policy"] = noReferrer
		c.Next()
	}
}
