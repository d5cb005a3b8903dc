package bqexport

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/benchwright/benchwright/internal/resultsdb"
	"github.com/benchwright/benchwright/test/util"
)

// pg is the real PostgreSQL server the tests share.
var pg *util.Postgres

func TestMain(m *testing.M) {
	var err error
	if pg, err = util.StartPostgres(); err != nil {
		fmt.Fprintln(os.Stderr, "bqexport tests need a real PostgreSQL:", err)
		os.Exit(1)
	}
	code := m.Run()
	pg.Stop()
	os.Exit(code)
}

var databases atomic.Int32

// eachEngine runs f on a new, empty results database of each engine: a
// SQLite file, and a database of its own on the PostgreSQL server.
func eachEngine(t *testing.T, f func(t *testing.T, db *resultsdb.DB)) {
	t.Helper()
	name := fmt.Sprintf("bq_%d", databases.Add(1))
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
	for _, e := range []struct{ engine, url string }{
		{"sqlite", "sqlite://" + filepath.Join(t.TempDir(), "results.db")},
		{"postgres", u.String()},
	} {
		t.Run(e.engine, func(t *testing.T) {
			db, err := resultsdb.Open(context.Background(), e.url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = db.Close() })
			f(t, db)
		})
	}
}
