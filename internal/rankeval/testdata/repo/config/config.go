// Package config loads the service configuration from a YAML-like key=value
// file and the environment. Environment variables override the file.
package config

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// Config is the whole service configuration.
type Config struct {
	ListenAddr      string
	DatabaseURL     string
	SigningKey      string
	TokenTTL        time.Duration
	MaxUploadBytes  int64
	RequestsPerSec  float64
	Burst           int
	CacheEntries    int
	WorkerCount     int
	FlagsFile       string
	ShutdownTimeout time.Duration
}

// Defaults returns the configuration used when nothing is set.
func Defaults() Config {
	return Config{
		ListenAddr:      ":8080",
		TokenTTL:        15 * time.Minute,
		MaxUploadBytes:  32 << 20,
		RequestsPerSec:  10,
		Burst:           20,
		CacheEntries:    4096,
		WorkerCount:     4,
		ShutdownTimeout: 20 * time.Second,
	}
}

// ParseConfig reads key=value lines from r on top of Defaults. Blank lines
// and lines starting with '#' are skipped.
func ParseConfig(r io.Reader) (Config, error) {
	cfg := Defaults()
	sc := bufio.NewScanner(r)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			return cfg, fmt.Errorf("config line %d: missing '='", lineNo)
		}
		if err := cfg.set(strings.TrimSpace(key), strings.TrimSpace(value)); err != nil {
			return cfg, fmt.Errorf("config line %d: %w", lineNo, err)
		}
	}
	return cfg, sc.Err()
}

func (c *Config) set(key, value string) error {
	var err error
	switch key {
	case "listen_addr":
		c.ListenAddr = value
	case "database_url":
		c.DatabaseURL = value
	case "signing_key":
		c.SigningKey = value
	case "token_ttl":
		c.TokenTTL, err = time.ParseDuration(value)
	case "max_upload_bytes":
		c.MaxUploadBytes, err = strconv.ParseInt(value, 10, 64)
	case "requests_per_sec":
		c.RequestsPerSec, err = strconv.ParseFloat(value, 64)
	case "burst":
		c.Burst, err = strconv.Atoi(value)
	case "worker_count":
		c.WorkerCount, err = strconv.Atoi(value)
	case "flags_file":
		c.FlagsFile = value
	default:
		return fmt.Errorf("unknown key %q", key)
	}
	return err
}

// ApplyEnv overrides fields from TOLLGATE_* environment variables.
func (c *Config) ApplyEnv() error {
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		key, ok := strings.CutPrefix(name, "TOLLGATE_")
		if !ok {
			continue
		}
		if err := c.set(strings.ToLower(key), value); err != nil {
			return fmt.Errorf("env %s: %w", name, err)
		}
	}
	return nil
}

// Validate reports the first invalid setting.
func (c *Config) Validate() error {
	if c.DatabaseURL == "" {
		return fmt.Errorf("database_url is required")
	}
	if len(c.SigningKey) < 32 {
		return fmt.Errorf("signing_key must be at least 32 bytes")
	}
	if c.Burst < 1 || c.RequestsPerSec <= 0 {
		return fmt.Errorf("rate limit needs burst >= 1 and requests_per_sec > 0")
	}
	return nil
}
