package resultsdb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// migrations are the schema's versions, in order: version i+1 is
// migrations[i]. A released migration never changes; a new one is appended.
// Each runs in its own transaction with its version's row, so a manager
// killed mid-migration leaves the database at the version before.
var migrations = []string{
	// 1: runs, their configurations, and their samples. No foreign keys:
	// their per-row checks would double the indexing's time on PostgreSQL;
	// a run's rows are written and deleted together (Index, Forget).
	`CREATE TABLE runs (
		run_uid     TEXT PRIMARY KEY,
		kind        TEXT NOT NULL,
		namespace   TEXT NOT NULL,
		name        TEXT NOT NULL,
		campaign    TEXT NOT NULL DEFAULT '',
		series      TEXT NOT NULL,
		pool        TEXT NOT NULL DEFAULT '',
		tuning      TEXT NOT NULL DEFAULT '',
		started_ns  BIGINT NOT NULL,
		finished_ns BIGINT NOT NULL,
		location    TEXT NOT NULL,
		nodes       TEXT NOT NULL DEFAULT '[]',
		indexed_ns  BIGINT NOT NULL
	);
	CREATE INDEX runs_finished ON runs (finished_ns);
	CREATE TABLE configs (
		config    TEXT PRIMARY KEY,
		kind      TEXT NOT NULL,
		namespace TEXT NOT NULL,
		series    TEXT NOT NULL,
		pool      TEXT NOT NULL,
		tuning    TEXT NOT NULL,
		test      TEXT NOT NULL,
		metric    TEXT NOT NULL,
		unit      TEXT NOT NULL,
		labels    TEXT NOT NULL
	);
	CREATE INDEX configs_metric ON configs (metric, test);
	CREATE TABLE config_runs (
		config      TEXT NOT NULL,
		run_uid     TEXT NOT NULL,
		finished_ns BIGINT NOT NULL,
		PRIMARY KEY (config, run_uid)
	);
	CREATE INDEX config_runs_newest ON config_runs (config, finished_ns);
	CREATE INDEX config_runs_run ON config_runs (run_uid);
	CREATE TABLE samples (
		run_uid    TEXT NOT NULL,
		seq        INTEGER NOT NULL,
		config     TEXT NOT NULL,
		value      DOUBLE PRECISION NOT NULL,
		repetition INTEGER NOT NULL,
		warmup     INTEGER NOT NULL,
		ts_ns      BIGINT NOT NULL,
		labels     TEXT NOT NULL
	);
	CREATE UNIQUE INDEX samples_run ON samples (run_uid, seq);
	CREATE INDEX samples_config ON samples (config, run_uid);`,
	// 2: acknowledged changes: a configuration's history is checked from
	// the acknowledged run on (Acknowledge).
	`CREATE TABLE acknowledgements (
		config   TEXT NOT NULL,
		run_uid  TEXT NOT NULL,
		note     TEXT NOT NULL DEFAULT '',
		acked_ns BIGINT NOT NULL,
		PRIMARY KEY (config, run_uid)
	)`,
}

// SchemaVersion is the version this build migrates a database to.
func SchemaVersion() int { return len(migrations) }

// migrate brings the schema to SchemaVersion. A database newer than this
// build is refused, not written: an older manager must not write rows a
// newer schema does not expect.
func (db *DB) migrate(ctx context.Context) error {
	if err := db.exec(ctx, db.sql, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		applied_ns BIGINT NOT NULL
	)`); err != nil {
		return fmt.Errorf("creating schema_migrations: %w", err)
	}
	for v := 1; v <= len(migrations); v++ {
		if err := db.inTx(ctx, func(tx *sql.Tx) error { return db.step(ctx, tx, v) }); err != nil {
			return fmt.Errorf("migrating the schema to version %d: %w", v, err)
		}
	}
	current, err := db.version(ctx, db.sql)
	if err != nil {
		return err
	}
	if current > len(migrations) {
		return fmt.Errorf("the schema is at version %d, newer than this build's %d: upgrade benchwright", current, len(migrations))
	}
	return nil
}

// step applies version v unless it is there: several managers sharing one
// PostgreSQL server migrate one at a time (an advisory lock), and SQLite's
// transactions take the write lock at BEGIN.
func (db *DB) step(ctx context.Context, tx *sql.Tx, v int) error {
	if db.dialect == postgresDialect {
		if err := db.exec(ctx, tx, `SELECT pg_advisory_xact_lock(7290111)`); err != nil {
			return err
		}
	}
	current, err := db.version(ctx, tx)
	if err != nil || current >= v {
		return err
	}
	if current != v-1 {
		return fmt.Errorf("the schema is at version %d, not %d", current, v-1)
	}
	if err := db.execScript(ctx, tx, migrations[v-1]); err != nil {
		return err
	}
	return db.exec(ctx, tx, `INSERT INTO schema_migrations (version, applied_ns) VALUES (?, ?)`, v, time.Now().UnixNano())
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (db *DB) version(ctx context.Context, q querier) (int, error) {
	var v sql.NullInt64
	if err := q.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("reading the schema version: %w", err)
	}
	return int(v.Int64), nil
}

// execScript runs a migration's statements one by one (pgx's extended
// protocol takes one statement per call).
func (db *DB) execScript(ctx context.Context, tx *sql.Tx, script string) error {
	for _, stmt := range splitStatements(script) {
		if err := db.exec(ctx, tx, stmt); err != nil {
			first, _, _ := strings.Cut(stmt, "\n")
			return fmt.Errorf("%w, in %q", err, strings.TrimSpace(first))
		}
	}
	return nil
}

// splitStatements splits a migration at its semicolons (none of the
// migrations has one inside a literal).
func splitStatements(script string) []string {
	var out []string
	for _, s := range strings.Split(script, ";") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
