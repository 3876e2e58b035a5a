// Command tollgate runs the API server and the background workers.
package main

import (
	"context"
	"errors"
	"log"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"example.com/tollgate/api"
	"example.com/tollgate/auth"
	"example.com/tollgate/cache"
	"example.com/tollgate/config"
	"example.com/tollgate/flags"
	"example.com/tollgate/logging"
	"example.com/tollgate/ratelimit"
	"example.com/tollgate/storage"
)

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

// run loads the configuration, migrates the database and serves until
// SIGINT or SIGTERM, then drains connections for ShutdownTimeout.
func run() error {
	f, err := os.Open(os.Getenv("TOLLGATE_CONFIG"))
	if err != nil {
		return err
	}
	cfg, err := config.ParseConfig(f)
	f.Close()
	if err != nil {
		return err
	}
	if err := cfg.ApplyEnv(); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	logger := logging.NewLogger(os.Stderr, slog.LevelInfo)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	db, err := storage.OpenDB(ctx, "pgx", cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := storage.Migrate(ctx, db); err != nil {
		return err
	}
	limiter := ratelimit.NewLimiter(cfg.RequestsPerSec, cfg.Burst)
	go sweepLoop(ctx, limiter)
	fl := &flags.Set{}
	if cfg.FlagsFile != "" {
		if err := fl.LoadFlags(cfg.FlagsFile); err != nil {
			return err
		}
	}
	srv := &http.Server{Addr: cfg.ListenAddr, ReadHeaderTimeout: 10 * time.Second, Handler: api.NewRouter(&api.Server{
		Signer: auth.NewSigner([]byte(cfg.SigningKey)), Limiter: limiter, Flags: fl,
		Blobs: &storage.BlobStore{Root: "/var/lib/tollgate/blobs", Max: cfg.MaxUploadBytes},
		Cache: cache.NewLRU(cfg.CacheEntries),
	})}
	go func() {
		<-ctx.Done()
		shutCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
		defer cancel()
		_ = srv.Shutdown(shutCtx)
	}()
	logger.Info("listening", "addr", cfg.ListenAddr)
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func sweepLoop(ctx context.Context, l *ratelimit.Limiter) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			l.Sweep()
		}
	}
}
