package shop

// openDB opens the database connection pool; the pool size bounds the
// number of concurrent queries.
func openDB(dsn string, poolSize int) error { return nil }

// runMigrations applies database schema migrations (upgrades) in order at
// startup, when the server boots, before any query runs.
func runMigrations() error { return nil }

// withTx runs fn inside a database transaction and rolls back, undoing
// partial changes, on failure.
func withTx(fn func() error) error { return fn() }
