// Package storage wraps the SQL database: connection setup, transactions,
// schema migrations and blob uploads.
package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// DB is the service's database handle.
type DB struct {
	sql *sql.DB
}

// OpenDB opens the database at url and configures the connection pool.
func OpenDB(ctx context.Context, driver, url string) (*DB, error) {
	db, err := sql.Open(driver, url)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	db.SetMaxOpenConns(20)
	db.SetMaxIdleConns(20)
	db.SetConnMaxLifetime(5 * time.Minute)
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		db.Close()
		return nil, fmt.Errorf("ping database: %w", err)
	}
	return &DB{sql: db}, nil
}

// ErrSerialization is returned by WithTx after too many serialization
// conflicts.
var ErrSerialization = errors.New("storage: serialization failure")

// WithTx runs fn in a serializable transaction, retrying it up to three
// times when the database reports a serialization conflict.
func (db *DB) WithTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	for i := 0; i < 3; i++ {
		tx, err := db.sql.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable})
		if err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			tx.Rollback()
			if isSerializationFailure(err) {
				continue
			}
			return err
		}
		if err := tx.Commit(); err != nil {
			if isSerializationFailure(err) {
				continue
			}
			return err
		}
		return nil
	}
	return ErrSerialization
}

// isSerializationFailure matches SQLSTATE 40001.
func isSerializationFailure(err error) bool {
	type sqlState interface{ SQLState() string }
	var s sqlState
	return errors.As(err, &s) && s.SQLState() == "40001"
}

// Close closes the pool.
func (db *DB) Close() error { return db.sql.Close() }
