// Package ratelimit implements per-tenant token buckets.
package ratelimit

import (
	"sync"
	"time"
)

// bucket is one tenant's token bucket.
type bucket struct {
	tokens   float64
	last     time.Time
	lastSeen time.Time
}

// Limiter holds one bucket per tenant. Buckets idle for longer than idleTTL
// are evicted by Sweep.
type Limiter struct {
	mu      sync.Mutex
	rate    float64 // tokens per second
	burst   float64
	buckets map[string]*bucket
	now     func() time.Time
	idleTTL time.Duration
}

// NewLimiter returns a limiter refilling rate tokens per second up to burst.
func NewLimiter(rate float64, burst int) *Limiter {
	return &Limiter{rate: rate, burst: float64(burst), buckets: map[string]*bucket{}, now: time.Now, idleTTL: 10 * time.Minute}
}

// Allow takes one token from tenant's bucket and reports whether it had one.
func (l *Limiter) Allow(tenant string) bool {
	return l.AllowN(tenant, 1)
}

// AllowN takes n tokens at once (an upload costs one token per MiB).
func (l *Limiter) AllowN(tenant string, n int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b, ok := l.buckets[tenant]
	if !ok {
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[tenant] = b
	}
	b.refill(now, l.rate, l.burst)
	b.lastSeen = now
	if b.tokens < float64(n) {
		return false
	}
	b.tokens -= float64(n)
	return true
}

// refill adds the tokens earned since the last call, capped at burst.
func (b *bucket) refill(now time.Time, rate, burst float64) {
	elapsed := now.Sub(b.last).Seconds()
	if elapsed > 0 {
		b.tokens += elapsed * rate
		if b.tokens > burst {
			b.tokens = burst
		}
		b.last = now
	}
}

// RetryAfter returns how long tenant must wait for one token.
func (l *Limiter) RetryAfter(tenant string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[tenant]
	if !ok || b.tokens >= 1 {
		return 0
	}
	return time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
}

// Sweep evicts buckets idle for longer than idleTTL; main calls it every
// minute.
func (l *Limiter) Sweep() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for k, b := range l.buckets {
		if l.now().Sub(b.lastSeen) > l.idleTTL {
			delete(l.buckets, k)
			n++
		}
	}
	return n
}
