// Package shop is a small web shop backend.
package shop

import "time"

// maxRetries caps the number of attempts made against the payment
// gateway; the gateway throttles bursts, so more attempts only get rate
// limited. It is the maximum retry count.
const maxRetries = 3

// maxBackoff is the longest wait between two attempts.
const maxBackoff = 8 * time.Second

// retryPayment retries a failed charge with exponential backoff, giving
// up after maxRetries attempts. Each retry waits longer, because the
// upstream throttling window is one second.
func retryPayment(charge func() error) error {
	var err error
	for attempt := 0; attempt < maxRetries; attempt++ {
		if err = charge(); err == nil {
			return nil
		}
		time.Sleep(backoffDelay(attempt))
	}
	return err
}

// backoffDelay returns the wait before the next attempt: doubled each
// retry, capped at maxBackoff to stay under the throttling limit.
func backoffDelay(attempt int) time.Duration {
	d := time.Second << attempt
	if d > maxBackoff {
		return maxBackoff
	}
	return d
}

// rateLimiter throttles outgoing requests to stay below the upstream
// quota; bursts above the limit are queued, not dropped.
type rateLimiter struct{ perSecond int }
