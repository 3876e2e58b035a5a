// Package auth issues and verifies HMAC-signed session tokens.
package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrExpired is returned for a token past its expiry plus clockSkew.
var ErrExpired = errors.New("auth: token expired")

// ErrBadSignature is returned when no known key verifies the token.
var ErrBadSignature = errors.New("auth: bad signature")

// clockSkew tolerates clocks of other replicas running behind.
const clockSkew = 30 * time.Second

// Claims are the fields carried by a session token.
type Claims struct {
	TenantID string
	UserID   string
	Expiry   time.Time
}

// Signer signs and verifies tokens. It keeps the previous key after a
// rotation so tokens issued before it stay valid until they expire.
type Signer struct {
	mu       sync.RWMutex
	current  []byte
	previous []byte
	now      func() time.Time
}

// NewSigner returns a Signer using key.
func NewSigner(key []byte) *Signer {
	return &Signer{current: key, now: time.Now}
}

// RotateSigningKey makes key the current key and keeps the old one for
// verification only.
func (s *Signer) RotateSigningKey(key []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.previous, s.current = s.current, key
}

// IssueToken returns "tenant.user.expiry.signature" valid for ttl.
func (s *Signer) IssueToken(tenantID, userID string, ttl time.Duration) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	exp := s.now().Add(ttl).Unix()
	payload := tenantID + "." + userID + "." + strconv.FormatInt(exp, 10)
	return payload + "." + sign(s.current, payload)
}

// VerifyToken checks the signature with the current and the previous key
// and returns the claims.
func (s *Signer) VerifyToken(token string) (Claims, error) {
	i := strings.LastIndexByte(token, '.')
	if i < 0 {
		return Claims{}, ErrBadSignature
	}
	payload, sig := token[:i], token[i+1:]
	s.mu.RLock()
	ok := hmac.Equal([]byte(sig), []byte(sign(s.current, payload))) ||
		(s.previous != nil && hmac.Equal([]byte(sig), []byte(sign(s.previous, payload))))
	s.mu.RUnlock()
	if !ok {
		return Claims{}, ErrBadSignature
	}
	parts := strings.Split(payload, ".")
	if len(parts) != 3 {
		return Claims{}, ErrBadSignature
	}
	exp, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil {
		return Claims{}, ErrBadSignature
	}
	c := Claims{TenantID: parts[0], UserID: parts[1], Expiry: time.Unix(exp, 0)}
	if s.now().After(c.Expiry.Add(clockSkew)) {
		return Claims{}, ErrExpired
	}
	return c, nil
}

func sign(key []byte, payload string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}
