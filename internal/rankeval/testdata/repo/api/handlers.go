package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"example.com/tollgate/auth"
	"example.com/tollgate/storage"
)

// errorBody is the JSON shape of every error answer.
type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// writeJSON writes v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError writes an errorBody; code is a stable machine-readable string.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, errorBody{Code: code, Message: msg})
}

// handleUpload stores the request body as a blob of the caller's tenant.
func (s *Server) handleUpload(w http.ResponseWriter, r *http.Request) {
	claims, _ := auth.FromContext(r.Context())
	if r.ContentLength > s.Blobs.Max {
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", "upload exceeds the limit")
		return
	}
	sum, n, err := s.Blobs.PutBlob(claims.TenantID, r.Body)
	if errors.Is(err, storage.ErrTooLarge) {
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", "upload exceeds the limit")
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, "internal", "could not store upload")
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"sha256": sum, "size": n})
}

// handleGetInvoice returns one invoice of the caller's tenant, cached for a
// minute. Another tenant's invoice answers 404, not 403, to avoid leaking
// which ids exist.
func (s *Server) handleGetInvoice(w http.ResponseWriter, r *http.Request) {
	claims, _ := auth.FromContext(r.Context())
	id := r.PathValue("id")
	key := claims.TenantID + "/" + id
	v, err := s.Cache.GetOrLoad(key, time.Minute, func() (any, error) {
		return s.Invoices.Invoice(claims.TenantID, id)
	})
	if err != nil {
		writeError(w, http.StatusNotFound, "not_found", "no such invoice")
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func itoa(n int) string { return strconv.Itoa(n) }
