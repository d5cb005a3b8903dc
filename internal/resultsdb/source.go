package resultsdb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/campaign"
	"github.com/benchwright/benchwright/internal/results"
)

// RunOf is the run a stored summary.json describes, at prefix in the store.
// A campaign cell's series, pool and tuning are the campaign's own names
// (its benchmark's labels), not the objects' generated ones.
func RunOf(sum results.RunSummary, prefix string) Run {
	l := sum.Labels
	return Run{
		UID: sum.RunUID, Kind: sum.Kind, Namespace: sum.Namespace, Name: sum.Name,
		Campaign: l[benchv1.CampaignLabel], Series: l[campaign.BenchmarkLabel],
		Pool: l[campaign.PoolLabel], Tuning: l[campaign.TuningLabel],
		Started: sum.Started, Finished: sum.Finished, Location: prefix, Nodes: sum.Nodes,
	}
}

// SamplesOf hands out samples held in memory.
func SamplesOf(samples []results.Sample) SampleSource {
	return func(add func(results.Sample) error) error {
		for _, s := range samples {
			if err := add(s); err != nil {
				return err
			}
		}
		return nil
	}
}

// StoredSamples reads a run's samples.ndjson from the store a line at a time.
func StoredSamples(ctx context.Context, store *artifacts.Store, prefix string) SampleSource {
	return func(add func(results.Sample) error) error {
		r, err := store.NewReader(ctx, prefix+results.SamplesNDJSONFile)
		if err != nil {
			return err
		}
		defer r.Close()
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		var addErr error
		_, err = results.DecodeNDJSON(ctx, r, func(s results.Sample) {
			if addErr == nil {
				if addErr = add(s); addErr != nil {
					cancel(addErr)
				}
			}
		})
		if addErr != nil {
			return addErr
		}
		if err != nil {
			return fmt.Errorf("%s: %w", store.URI(prefix+results.SamplesNDJSONFile), err)
		}
		return nil
	}
}

// BackfillResult counts what a backfill did.
type BackfillResult struct {
	// Indexed runs were added; Known were there already; Unfinished have
	// no outcome.json (running, failed, or cut short).
	Indexed, Known, Unfinished int
	// Failed runs could not be read; their errors are in Errors (the first
	// few), and the backfill went on.
	Failed int
	Errors []error
}

// maxBackfillErrors is how many errors a BackfillResult keeps.
const maxBackfillErrors = 10

// Backfill indexes every succeeded run of the store that the database does
// not have. It is idempotent and may run beside the manager's own indexing:
// a run is added once. A run that cannot be read is counted and skipped.
func Backfill(ctx context.Context, db *DB, store *artifacts.Store) (BackfillResult, error) {
	var res BackfillResult
	err := store.Walk(ctx, "", func(key string) error {
		prefix, ok := strings.CutSuffix(key, results.SummaryFile)
		if !ok || !strings.HasSuffix(prefix, "/") {
			return nil
		}
		uid := prefix[strings.LastIndex(strings.TrimSuffix(prefix, "/"), "/")+1 : len(prefix)-1]
		if known, err := db.Has(ctx, uid); err != nil {
			return err // the database, not the run: stop
		} else if known {
			res.Known++
			return nil
		}
		added, err := indexStored(ctx, db, store, prefix)
		switch {
		case errors.Is(err, errUnfinished):
			res.Unfinished++
		case err != nil:
			res.Failed++
			if len(res.Errors) < maxBackfillErrors {
				res.Errors = append(res.Errors, err)
			}
		case added:
			res.Indexed++
		default:
			res.Known++
		}
		return ctx.Err()
	})
	return res, err
}

var errUnfinished = errors.New("the run has not succeeded")

// IndexStored indexes the stored run at prefix ("ns/Kind/name/uid/") if it
// succeeded.
func IndexStored(ctx context.Context, db *DB, store *artifacts.Store, prefix string) (bool, error) {
	added, err := indexStored(ctx, db, store, prefix)
	if errors.Is(err, errUnfinished) {
		return false, fmt.Errorf("%s: %w (no outcome.json)", store.URI(prefix), err)
	}
	return added, err
}

func indexStored(ctx context.Context, db *DB, store *artifacts.Store, prefix string) (bool, error) {
	done, err := store.Exists(ctx, prefix+"outcome.json")
	if err != nil {
		return false, err
	}
	if !done {
		return false, errUnfinished
	}
	data, err := store.Get(ctx, prefix+results.SummaryFile)
	if err != nil {
		return false, err
	}
	var sum results.RunSummary
	if err := json.Unmarshal(data, &sum); err != nil {
		return false, fmt.Errorf("%s: %w", store.URI(prefix+results.SummaryFile), err)
	}
	// The summary must be of the run whose place it is in: a file that
	// claimed another run's UID would keep that run out of the database.
	if want := sum.Namespace + "/" + sum.Kind + "/" + sum.Name + "/" + sum.RunUID + "/"; want != prefix {
		return false, fmt.Errorf("%s describes %s, not the run of its place", store.URI(prefix+results.SummaryFile), want)
	}
	return db.Index(ctx, RunOf(sum, prefix), StoredSamples(ctx, store, prefix))
}
