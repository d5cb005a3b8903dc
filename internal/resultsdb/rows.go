package resultsdb

import (
	"context"
	"database/sql"
	"strings"
)

// sampleRow is a row of the samples table, less its run's UID.
type sampleRow struct {
	seq        int
	config     string
	value      float64
	repetition int
	warmup     int
	ts         int64
	labels     string
}

// rowWriter writes one run's sample rows in batches.
type rowWriter interface {
	// add buffers a row, and writes the batch when it is full.
	add(ctx context.Context, r sampleRow) error
	// flush writes what add buffered.
	flush(ctx context.Context) error
	// close releases what the writer holds (nothing is written).
	close()
}

// rowWriter is PostgreSQL's COPY (copy.go), else multi-row INSERTs.
func (db *DB) rowWriter(conn *sql.Conn, tx *sql.Tx, uid string) rowWriter {
	if db.dialect == postgresDialect {
		return &copyWriter{conn: conn, uid: uid}
	}
	return &insertWriter{db: db, tx: tx, uid: uid}
}

// insertBatch is how many samples one INSERT carries (8 parameters each:
// well under SQLite's 32 766 and PostgreSQL's 65 535).
const insertBatch = 500

// insertWriter writes rows with INSERTs of insertBatch rows.
type insertWriter struct {
	db    *DB
	tx    *sql.Tx
	uid   string
	batch []any
	n     int
	full  *sql.Stmt // a whole batch's, prepared once
}

func (w *insertWriter) add(ctx context.Context, r sampleRow) error {
	w.batch = append(w.batch, w.uid, r.seq, r.config, r.value, r.repetition, r.warmup, r.ts, r.labels)
	if w.n++; w.n == insertBatch {
		return w.flush(ctx)
	}
	return nil
}

func (w *insertWriter) flush(ctx context.Context) error {
	var err error
	switch {
	case w.n == 0:
		return nil
	case w.n < insertBatch:
		_, err = w.tx.ExecContext(ctx, w.insert(w.n), w.batch...)
	default:
		if w.full == nil {
			if w.full, err = w.tx.PrepareContext(ctx, w.insert(insertBatch)); err != nil {
				return err
			}
		}
		_, err = w.full.ExecContext(ctx, w.batch...)
	}
	w.batch, w.n = w.batch[:0], 0
	return err
}

func (w *insertWriter) insert(rows int) string {
	return w.db.rebind(`INSERT INTO samples (run_uid, seq, config, value, repetition, warmup, ts_ns, labels) VALUES ` +
		strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?), ", rows), ", "))
}

func (w *insertWriter) close() {
	if w.full != nil {
		_ = w.full.Close()
	}
}
