package resultsdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"
	_ "modernc.org/sqlite"             // registers "sqlite"
)

// DB is an open results database, its schema migrated to the newest version.
type DB struct {
	sql     *sql.DB
	dialect dialect
	// where names it without a password, for messages.
	where string
}

type dialect int

const (
	sqliteDialect dialect = iota
	postgresDialect
)

// Open opens the database at rawURL and migrates its schema:
//   - sqlite:///path/to/results.db (created when missing), sqlite::memory:
//   - postgres://user@host:5432/db?sslmode=... (postgresql:// too); the
//     password comes from PGPASSWORD or the URL.
func Open(ctx context.Context, rawURL string) (*DB, error) {
	db, err := open(rawURL)
	if err != nil {
		return nil, err
	}
	if err := db.sql.PingContext(ctx); err != nil {
		_ = db.sql.Close()
		return nil, fmt.Errorf("results database %s: %w", db.where, err)
	}
	if err := db.migrate(ctx); err != nil {
		_ = db.sql.Close()
		return nil, fmt.Errorf("results database %s: %w", db.where, err)
	}
	return db, nil
}

func open(rawURL string) (*DB, error) {
	scheme, rest, ok := strings.Cut(rawURL, ":")
	if !ok {
		return nil, errors.New("results database: the URL has no scheme: want sqlite:///path/results.db or postgres://user@host/db")
	}
	switch scheme {
	case "sqlite":
		dsn, path, err := sqliteDSN(rest)
		if err != nil {
			return nil, err
		}
		where := "sqlite::memory:"
		if path != "" {
			where = "sqlite://" + path
			// The driver creates the file, not its directory: a manager run
			// on a fresh machine (not in the chart's volume) has none yet.
			if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
				return nil, fmt.Errorf("results database %s: %w", where, err)
			}
		}
		s, err := sql.Open("sqlite", dsn)
		if err != nil {
			return nil, err
		}
		// One writer at a time is all SQLite has; one connection also keeps
		// :memory: one database.
		s.SetMaxOpenConns(1)
		return &DB{sql: s, dialect: sqliteDialect, where: where}, nil
	case "postgres", "postgresql":
		// url.Parse's error quotes the URL, password and all.
		if _, err := url.Parse(rawURL); err != nil {
			return nil, errors.New("results database: the postgres URL does not parse: want postgres://user@host:5432/db?sslmode=require, the password in PGPASSWORD")
		}
		s, err := sql.Open("pgx", rawURL)
		if err != nil {
			return nil, fmt.Errorf("results database %s: %w", redact(rawURL), err)
		}
		return &DB{sql: s, dialect: postgresDialect, where: redact(rawURL)}, nil
	}
	return nil, fmt.Errorf("results database %q: scheme %q is neither sqlite nor postgres", redact(rawURL), scheme)
}

// sqliteDSN turns what follows "sqlite:" into the driver's DSN: WAL (readers
// do not wait for the writer) with synchronous=NORMAL (a power cut may lose
// the last transactions, which the next backfill indexes again from the
// store), a busy timeout, a 64 MiB page cache (an index
// insert that misses it reads the file), statement journals in memory. path
// is the database file ("" for :memory:).
func sqliteDSN(rest string) (dsn, path string, err error) {
	const pragmas = "_pragma=busy_timeout(10000)&_pragma=cache_size(-65536)&_pragma=temp_store(memory)&_txlock=immediate"
	if rest == ":memory:" {
		return ":memory:?" + pragmas, "", nil
	}
	path, ok := strings.CutPrefix(rest, "//")
	if !ok || !filepath.IsAbs(path) || strings.ContainsAny(path, "?#") {
		return "", "", fmt.Errorf("results database sqlite:%s: want sqlite:///an/absolute/path.db", rest)
	}
	return "file:" + path + "?" + pragmas + "&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)", path, nil
}

// redact is a URL fit for messages: the password of its user and of its
// query (password=, sslpassword=) hidden; one that does not parse is not
// shown at all.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(a URL that does not parse)"
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			if strings.Contains(strings.ToLower(k), "password") {
				q.Set(k, "xxxxx")
			}
		}
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// Close closes the database.
func (db *DB) Close() error { return db.sql.Close() }

// String names the database, without a password ("none" when nil).
func (db *DB) String() string {
	if db == nil {
		return "none"
	}
	return db.where
}

// rebind turns the ? placeholders of a query into PostgreSQL's $1, $2...
func (db *DB) rebind(query string) string {
	if db.dialect != postgresDialect {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (db *DB) exec(ctx context.Context, q execer, query string, args ...any) error {
	_, err := q.ExecContext(ctx, db.rebind(query), args...)
	return err
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// inTx runs f in a transaction, committed when f returns nil.
func (db *DB) inTx(ctx context.Context, f func(*sql.Tx) error) error {
	return db.inConnTx(ctx, func(_ *sql.Conn, tx *sql.Tx) error { return f(tx) })
}

// inConnTx is inTx that hands f the connection the transaction runs on too:
// PostgreSQL's COPY is spoken on the connection itself (copy.go).
func (db *DB) inConnTx(ctx context.Context, f func(*sql.Conn, *sql.Tx) error) error {
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(conn, tx); err != nil {
		return errors.Join(err, tx.Rollback())
	}
	return tx.Commit()
}
