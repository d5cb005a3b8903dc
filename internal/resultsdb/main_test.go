package resultsdb

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/benchwright/benchwright/test/util"
)

// pg is the real PostgreSQL server the tests share.
var pg *util.Postgres

func TestMain(m *testing.M) {
	var err error
	if pg, err = util.StartPostgres(); err != nil {
		fmt.Fprintln(os.Stderr, "resultsdb tests need a real PostgreSQL:", err)
		os.Exit(1)
	}
	code := m.Run()
	pg.Stop()
	os.Exit(code)
}

var databases atomic.Int32

// engines opens a new, empty database of each engine for a test: a SQLite
// file, and a database of its own on the PostgreSQL server.
func engines(t testing.TB) map[string]string {
	t.Helper()
	name := fmt.Sprintf("test_%d", databases.Add(1))
	admin, err := sql.Open("pgx", pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(pg.URL)
	u.Path = "/" + name
	return map[string]string{
		"sqlite":   "sqlite://" + filepath.Join(t.TempDir(), "results.db"),
		"postgres": u.String(),
	}
}

// eachEngine runs f on a new database of each engine.
func eachEngine(t *testing.T, f func(t *testing.T, db *DB, url string)) {
	for engine, url := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			db, err := Open(context.Background(), url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = db.Close() })
			f(t, db, url)
		})
	}
}

// eachEngineRaw runs f on the URL of a new, empty database of each engine,
// unopened.
func eachEngineRaw(t *testing.T, f func(t *testing.T, url string)) {
	for engine, url := range engines(t) {
		t.Run(engine, func(t *testing.T) { f(t, url) })
	}
}
