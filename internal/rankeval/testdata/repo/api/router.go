// Package api is the HTTP interface of the service.
package api

import (
	"net/http"

	"example.com/tollgate/auth"
	"example.com/tollgate/billing"
	"example.com/tollgate/cache"
	"example.com/tollgate/flags"
	"example.com/tollgate/logging"
	"example.com/tollgate/ratelimit"
	"example.com/tollgate/storage"
)

// Server holds the handlers' dependencies.
type Server struct {
	Signer   *auth.Signer
	Limiter  *ratelimit.Limiter
	Blobs    *storage.BlobStore
	Cache    *cache.LRU
	Flags    *flags.Set
	Invoices InvoiceStore
}

// InvoiceStore loads invoices.
type InvoiceStore interface {
	Invoice(tenantID, id string) (*billing.Invoice, error)
}

// NewRouter wires the routes. Middleware order matters: request id first
// (so every log line has it), then auth, then rate limiting (which needs
// the tenant from the token).
func NewRouter(s *Server) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", handleHealth)
	mux.Handle("POST /v1/uploads", s.protected(http.HandlerFunc(s.handleUpload)))
	mux.Handle("GET /v1/invoices/{id}", s.protected(http.HandlerFunc(s.handleGetInvoice)))
	return logging.WithRequestID(mux)
}

func (s *Server) protected(h http.Handler) http.Handler {
	return auth.RequireAuth(s.Signer, s.rateLimited(h))
}

// rateLimited answers 429 with Retry-After when the tenant is over its rate.
func (s *Server) rateLimited(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		claims, _ := auth.FromContext(r.Context())
		if !s.Limiter.Allow(claims.TenantID) {
			secs := int(s.Limiter.RetryAfter(claims.TenantID).Seconds()) + 1
			w.Header().Set("Retry-After", itoa(secs))
			writeError(w, http.StatusTooManyRequests, "rate_limited", "too many requests")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func handleHealth(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusOK)
}
