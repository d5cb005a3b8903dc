package resultsdb

import (
	"context"
	"fmt"
	"time"
)

// Acknowledge records that a person has seen the change of configuration c
// at run uid: its history is checked from that run on, the level since
// then the new normal. Acknowledging again is a no-op.
func (db *DB) Acknowledge(ctx context.Context, c Config, uid, note string) error {
	var n int
	if err := db.sql.QueryRowContext(ctx, db.rebind(`SELECT COUNT(*) FROM config_runs WHERE config = ? AND run_uid = ?`), c.ID(), uid).Scan(&n); err != nil {
		return fmt.Errorf("acknowledging: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("acknowledging: run %s has no figure of %s", uid, c)
	}
	return db.exec(ctx, db.sql, `INSERT INTO acknowledgements (config, run_uid, note, acked_ns) VALUES (?, ?, ?, ?)
		ON CONFLICT (config, run_uid) DO NOTHING`, c.ID(), uid, clip(note), time.Now().UnixNano())
}

// Acknowledged are the runs acknowledged in c's history (Acknowledge), in
// any order.
func (db *DB) Acknowledged(ctx context.Context, c Config) ([]string, error) {
	uids, err := db.strings(ctx, `SELECT run_uid FROM acknowledgements WHERE config = ?`, c.ID())
	if err != nil {
		return nil, fmt.Errorf("reading acknowledgements: %w", err)
	}
	return uids, nil
}
