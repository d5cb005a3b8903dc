package resultsdb

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenRefusesBadURLs(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"results.db", "want sqlite:///path"},
		{"sqlite:results.db", "want sqlite:///an/absolute/path.db"},
		{"sqlite:///tmp/x.db?mode=ro", "want sqlite:///an/absolute/path.db"},
		{"mysql://u:secret@h/db", `scheme "mysql"`},
		{"postgres://u:secret@127.0.0.1:1/db?connect_timeout=2", "connect"},
		// The password in the query string, and a URL that does not parse
		// (url.Parse's error quotes it whole).
		{"postgres://u@127.0.0.1:1/db?connect_timeout=2&password=secret", "127.0.0.1:1/db?connect_timeout=2&password=xxxxx"},
		{"postgres://u@127.0.0.1:1/db?connect_timeout=2&sslpassword=secret", "sslpassword=xxxxx"},
		{"postgres://u:secret@host:port/db", "does not parse"},
		{"postgres://u:secret@h/db\x7f", "does not parse"},
		{"secret", "want sqlite:///path"},
	} {
		_, err := Open(context.Background(), tc.url)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%q): %v, want an error saying %q", tc.url, err, tc.want)
		}
		if err != nil && strings.Contains(strings.ReplaceAll(err.Error(), "sslpassword", ""), "secret") {
			t.Errorf("Open(%q): the error shows the password: %v", tc.url, err)
		}
	}
}

// A manager run outside the chart's volume, on a fresh machine, has no
// directory for its database yet: Open makes it (the driver makes only the
// file).
func TestOpenMakesTheDatabasesDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "var", "lib", "benchwright", "results.db")
	db, err := Open(context.Background(), "sqlite://"+path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer func() { _ = db.Close() }()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the database file: %v", err)
	}
	if got, want := db.String(), "sqlite://"+path; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestMigrations(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB, url string) {
		ctx := context.Background()
		if v, err := db.version(ctx, db.sql); err != nil || v != SchemaVersion() {
			t.Fatalf("version %d (%v), want %d", v, err, SchemaVersion())
		}
		if strings.Contains(db.String(), pgPasswordForTests) {
			t.Errorf("String() shows the password: %s", db.String())
		}
		// Opening again migrates nothing and keeps one row per version.
		again, err := Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		var rows int
		if err := again.sql.QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&rows); err != nil || rows != SchemaVersion() {
			t.Errorf("%d migration rows (%v), want %d", rows, err, SchemaVersion())
		}
		_ = again.Close()
		// A database a newer build migrated is refused, not written.
		if err := db.exec(ctx, db.sql, `INSERT INTO schema_migrations (version, applied_ns) VALUES (?, 0)`, SchemaVersion()+5); err != nil {
			t.Fatal(err)
		}
		if newer, err := Open(ctx, url); err == nil || !strings.Contains(err.Error(), "newer than this build") {
			t.Errorf("a newer schema: %v", err)
			if newer != nil {
				_ = newer.Close()
			}
		}
	})
}

// pgPasswordForTests is util's test server password, which no message may show.
const pgPasswordForTests = "bench-pw-0"

// A migration that cannot be applied leaves the database at the version
// before, and Open says which step failed and why.
func TestAMigrationThatFailsAppliesNothing(t *testing.T) {
	eachEngineRaw(t, func(t *testing.T, url string) {
		ctx := context.Background()
		raw, err := open(url)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		// Something else's table where version 1 puts configs.
		if err := raw.exec(ctx, raw.sql, `CREATE TABLE configs (x INTEGER)`); err != nil {
			t.Fatal(err)
		}
		_, err = Open(ctx, url)
		if err == nil || !strings.Contains(err.Error(), "migrating the schema to version 1") || !strings.Contains(err.Error(), "configs") {
			t.Fatalf("Open over a conflicting table: %v", err)
		}
		t.Logf("Open: %v", err)
		var runs int
		if err := raw.sql.QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&runs); err != nil || runs != 0 {
			t.Errorf("%d versions recorded (%v), want none", runs, err)
		}
		for _, table := range []string{"runs", "samples", "config_runs"} {
			if _, err := raw.sql.Exec(`SELECT COUNT(*) FROM ` + table); err == nil {
				t.Errorf("table %s exists: the failed migration was half applied", table)
			}
		}
	})
}
