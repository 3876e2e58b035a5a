// Package queue runs background jobs stored in the jobs table with leases:
// a worker leases a job for visibilityTimeout; a job whose lease ran out is
// picked up again by another worker.
package queue

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// visibilityTimeout is how long a leased job stays invisible to others.
const visibilityTimeout = 2 * time.Minute

// maxJobAttempts moves a job to the dead-letter table after this many
// failures.
const maxJobAttempts = 8

// Job is one unit of background work.
type Job struct {
	ID       int64
	Kind     string
	Payload  []byte
	Attempts int
}

// Store is the persistence the worker needs.
type Store interface {
	Lease(ctx context.Context, until time.Time) (*Job, error)
	Ack(ctx context.Context, id int64) error
	Nack(ctx context.Context, id int64, retryAt time.Time) error
	DeadLetter(ctx context.Context, job *Job, reason string) error
}

// Handler processes one kind of job. It must be idempotent: a job can run
// twice when a lease expires mid-run.
type Handler func(ctx context.Context, payload []byte) error

// ErrNoJob is returned by Store.Lease when the queue is empty.
var ErrNoJob = errors.New("queue: no job")

// Pool runs Handlers on n goroutines.
type Pool struct {
	store    Store
	handlers map[string]Handler
	log      *slog.Logger
	wg       sync.WaitGroup
}

// NewPool returns a pool dispatching jobs by Kind.
func NewPool(store Store, handlers map[string]Handler, log *slog.Logger) *Pool {
	return &Pool{store: store, handlers: handlers, log: log}
}

// Start launches n workers that stop when ctx is cancelled; Wait waits for
// them to finish their current job.
func (p *Pool) Start(ctx context.Context, n int) {
	for i := 0; i < n; i++ {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.runWorker(ctx)
		}()
	}
}

// Wait blocks until all workers returned.
func (p *Pool) Wait() { p.wg.Wait() }

func (p *Pool) runWorker(ctx context.Context) {
	idle := 100 * time.Millisecond
	for ctx.Err() == nil {
		job, err := p.store.Lease(ctx, time.Now().Add(visibilityTimeout))
		if errors.Is(err, ErrNoJob) {
			time.Sleep(idle)
			if idle < 5*time.Second {
				idle *= 2
			}
			continue
		}
		if err != nil {
			p.log.Error("lease job", "err", err)
			time.Sleep(time.Second)
			continue
		}
		idle = 100 * time.Millisecond
		p.process(ctx, job)
	}
}

// process runs job's handler and acks, retries later or dead-letters it.
func (p *Pool) process(ctx context.Context, job *Job) {
	h, ok := p.handlers[job.Kind]
	if !ok {
		_ = p.store.DeadLetter(ctx, job, "no handler for kind "+job.Kind)
		return
	}
	jobCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), visibilityTimeout-10*time.Second)
	defer cancel()
	err := h(jobCtx, job.Payload)
	switch {
	case err == nil:
		_ = p.store.Ack(ctx, job.ID)
	case job.Attempts+1 >= maxJobAttempts:
		_ = p.store.DeadLetter(ctx, job, err.Error())
	default:
		retryAt := time.Now().Add(time.Duration(job.Attempts+1) * 30 * time.Second)
		_ = p.store.Nack(ctx, job.ID, retryAt)
	}
}
