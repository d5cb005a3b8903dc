package main

import (
	"context"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/resultsdb"
)

// backfillEvery is how often the manager indexes the store's runs that the
// database lacks: those a database outage or another manager's store left
// out (a run is indexed when it succeeds; startup backfills at once).
const backfillEvery = time.Hour

// backfiller indexes the store's succeeded runs into the database, at start
// and then every backfillEvery, on the leader only.
func backfiller(db *resultsdb.DB, store *artifacts.Store, log logr.Logger) manager.Runnable {
	return manager.RunnableFunc(func(ctx context.Context) error {
		for {
			began := time.Now()
			res, err := resultsdb.Backfill(ctx, db, store)
			if err != nil && ctx.Err() == nil {
				log.Error(err, "backfilling the results database", "database", db.String())
			}
			if res.Indexed > 0 || res.Failed > 0 {
				log.Info("backfilled the results database", "database", db.String(), "indexed", res.Indexed,
					"known", res.Known, "unfinished", res.Unfinished, "failed", res.Failed, "errors", res.Errors, "took", time.Since(began).Round(time.Millisecond))
			}
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(backfillEvery):
			}
		}
	})
}
