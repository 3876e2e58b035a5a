// Package retry runs operations again after transient failures with capped
// exponential backoff and full jitter.
package retry

import (
	"context"
	"errors"
	"math/rand"
	"net"
	"time"
)

// backoffCap bounds a single sleep between attempts.
const backoffCap = 30 * time.Second

// Policy says how often and how long to retry.
type Policy struct {
	MaxAttempts int
	BaseDelay   time.Duration
	// Rand is the jitter source; nil uses a time-seeded source.
	Rand *rand.Rand
}

// DefaultPolicy is used by webhook delivery and the queue worker.
var DefaultPolicy = Policy{MaxAttempts: 5, BaseDelay: 200 * time.Millisecond}

// NextDelay returns the sleep before attempt n (0-based): a uniform random
// duration in [0, min(backoffCap, BaseDelay*2^n)) ("full jitter").
func (p Policy) NextDelay(n int) time.Duration {
	d := p.BaseDelay << uint(n)
	if d <= 0 || d > backoffCap {
		d = backoffCap
	}
	r := p.Rand
	if r == nil {
		r = rand.New(rand.NewSource(time.Now().UnixNano()))
	}
	return time.Duration(r.Int63n(int64(d)))
}

// Permanent wraps an error that must not be retried.
type Permanent struct{ Err error }

func (e Permanent) Error() string { return e.Err.Error() }
func (e Permanent) Unwrap() error { return e.Err }

// IsRetryable reports whether err is worth another attempt: timeouts and
// temporary network errors are, Permanent errors and context errors are not.
func IsRetryable(err error) bool {
	var perm Permanent
	if errors.As(err, &perm) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return ne.Timeout()
	}
	return true
}

// Do calls op until it succeeds, returns a non-retryable error, ctx is done
// or MaxAttempts calls were made. It returns the last error.
func Do(ctx context.Context, p Policy, op func(ctx context.Context) error) error {
	var err error
	for attempt := 0; attempt < p.MaxAttempts; attempt++ {
		if err = op(ctx); err == nil || !IsRetryable(err) {
			return err
		}
		if attempt == p.MaxAttempts-1 {
			break
		}
		t := time.NewTimer(p.NextDelay(attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	return err
}
