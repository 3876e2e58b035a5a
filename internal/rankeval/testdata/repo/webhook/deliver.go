// Package webhook delivers signed event notifications to tenant endpoints.
package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"example.com/tollgate/retry"
)

// Event is one notification.
type Event struct {
	ID   string
	Type string
	Body []byte
}

// Deliverer posts events to endpoints.
type Deliverer struct {
	Client *http.Client
	Policy retry.Policy
	now    func() time.Time
}

// SignPayload returns the X-Tollgate-Signature header value:
// "t=<unix>,v1=<hex hmac-sha256 of t.body>".
func SignPayload(secret []byte, ts int64, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(strconv.FormatInt(ts, 10)))
	m.Write([]byte("."))
	m.Write(body)
	return fmt.Sprintf("t=%d,v1=%s", ts, hex.EncodeToString(m.Sum(nil)))
}

// Deliver posts ev to url, retrying 5xx and 429 answers and network errors
// with d.Policy. 4xx answers other than 429 are permanent failures.
func (d *Deliverer) Deliver(ctx context.Context, url string, secret []byte, ev Event) error {
	return retry.Do(ctx, d.Policy, func(ctx context.Context) error {
		ts := d.clock().Unix()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(ev.Body))
		if err != nil {
			return retry.Permanent{Err: err}
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Tollgate-Event", ev.Type)
		req.Header.Set("X-Tollgate-Delivery", ev.ID)
		req.Header.Set("X-Tollgate-Signature", SignPayload(secret, ts, ev.Body))
		resp, err := d.Client.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		switch {
		case resp.StatusCode < 300:
			return nil
		case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
			return fmt.Errorf("endpoint answered %d", resp.StatusCode)
		default:
			return retry.Permanent{Err: fmt.Errorf("endpoint answered %d", resp.StatusCode)}
		}
	})
}

func (d *Deliverer) clock() time.Time {
	if d.now != nil {
		return d.now()
	}
	return time.Now()
}
