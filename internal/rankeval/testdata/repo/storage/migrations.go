package storage

import (
	"context"
	"database/sql"
	"fmt"
)

// Migration is one forward-only schema change.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// migrations are applied in order; never edit an applied one, append a new
// one instead.
var migrations = []Migration{
	{1, "create_tenants", `CREATE TABLE tenants (id TEXT PRIMARY KEY, name TEXT NOT NULL, plan TEXT NOT NULL)`},
	{2, "create_invoices", `CREATE TABLE invoices (id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL REFERENCES tenants(id), total_cents BIGINT NOT NULL, currency TEXT NOT NULL, issued_at TIMESTAMPTZ NOT NULL)`},
	{3, "create_jobs", `CREATE TABLE jobs (id BIGSERIAL PRIMARY KEY, kind TEXT NOT NULL, payload BYTEA, attempts INT NOT NULL DEFAULT 0, leased_until TIMESTAMPTZ)`},
	{4, "index_invoices_tenant", `CREATE INDEX CONCURRENTLY invoices_tenant_idx ON invoices (tenant_id, issued_at)`},
	{5, "create_uploads", `CREATE TABLE uploads (id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, sha256 TEXT NOT NULL, size BIGINT NOT NULL)`},
}

// migrationLockID is the advisory lock key held while migrating so that
// replicas starting together do not race.
const migrationLockID = 727274

// Migrate applies the pending migrations and returns how many ran.
func Migrate(ctx context.Context, db *DB) (int, error) {
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, migrationLockID); err != nil {
		return 0, fmt.Errorf("migration lock: %w", err)
	}
	defer conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1)`, migrationLockID)
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INT NOT NULL)`); err != nil {
		return 0, err
	}
	current, err := schemaVersion(ctx, conn)
	if err != nil {
		return 0, err
	}
	ran := 0
	for _, m := range migrations {
		if m.Version <= current {
			continue
		}
		if err := applyMigration(ctx, conn, m); err != nil {
			return ran, fmt.Errorf("migration %d %s: %w", m.Version, m.Name, err)
		}
		ran++
	}
	return ran, nil
}

func schemaVersion(ctx context.Context, conn *sql.Conn) (int, error) {
	var v sql.NullInt64
	err := conn.QueryRowContext(ctx, `SELECT max(version) FROM schema_version`).Scan(&v)
	return int(v.Int64), err
}

// applyMigration runs m and records its version. CREATE INDEX CONCURRENTLY
// cannot run inside a transaction, so such statements run outside one.
func applyMigration(ctx context.Context, conn *sql.Conn, m Migration) error {
	if containsConcurrently(m.SQL) {
		if _, err := conn.ExecContext(ctx, m.SQL); err != nil {
			return err
		}
		_, err := conn.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES ($1)`, m.Version)
		return err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		tx.Rollback()
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES ($1)`, m.Version); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func containsConcurrently(s string) bool {
	for i := 0; i+12 <= len(s); i++ {
		if s[i:i+12] == "CONCURRENTLY" {
			return true
		}
	}
	return false
}
