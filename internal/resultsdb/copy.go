package resultsdb

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// copyBatch is how many samples one COPY carries: each COPY costs a round
// trip, and the rows wait in memory until it (about 2 MiB for 10 000).
const copyBatch = 10_000

// sampleColumns are the samples table's columns, in sampleRow's order.
var sampleColumns = []string{"run_uid", "seq", "config", "value", "repetition", "warmup", "ts_ns", "labels"}

// copyWriter writes rows with PostgreSQL's COPY (binary), on the connection
// the transaction runs on: the rows are the transaction's, and go with it
// on a rollback. It parses no SQL per batch, and no parameter count bounds
// a batch.
type copyWriter struct {
	conn *sql.Conn
	uid  string
	rows []sampleRow
}

func (w *copyWriter) add(ctx context.Context, r sampleRow) error {
	w.rows = append(w.rows, r)
	if len(w.rows) == copyBatch {
		return w.flush(ctx)
	}
	return nil
}

func (w *copyWriter) flush(ctx context.Context) error {
	if len(w.rows) == 0 {
		return nil
	}
	err := w.conn.Raw(func(driverConn any) error {
		c, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("COPY needs pgx's connection, not a %T", driverConn)
		}
		n, err := c.Conn().CopyFrom(ctx, pgx.Identifier{"samples"}, sampleColumns, &copyRows{uid: w.uid, rows: w.rows})
		if err == nil && n != int64(len(w.rows)) {
			err = fmt.Errorf("COPY wrote %d samples of %d", n, len(w.rows))
		}
		return err
	})
	w.rows = w.rows[:0]
	return err
}

func (w *copyWriter) close() {}

// copyRows hands rows to pgx's CopyFrom, which encodes each row's values
// before asking for the next: one slice serves them all.
type copyRows struct {
	uid  string
	rows []sampleRow
	i    int
	vals []any
}

func (c *copyRows) Next() bool {
	c.i++
	return c.i <= len(c.rows)
}

func (c *copyRows) Values() ([]any, error) {
	r := c.rows[c.i-1]
	c.vals = append(c.vals[:0], c.uid, r.seq, r.config, r.value, r.repetition, r.warmup, r.ts, r.labels)
	return c.vals, nil
}

func (c *copyRows) Err() error { return nil }
