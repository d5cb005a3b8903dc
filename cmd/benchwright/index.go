package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/resultsdb"
)

func newIndexCommand() *cobra.Command {
	var db, kind, namespace string
	cmd := &cobra.Command{
		Use:   "index --db URL DIR|URL|FILE...",
		Short: "Put stored runs, local runs or parsed outputs into a results database",
		Long: `Index runs in a results database, for history --db and history --check:

  - an artifact store (gs://, s3://, azblob://, file://, or a directory laid
    out as the manager's store, ns/Kind/name/uid/): its succeeded runs, as
    the manager's backfill indexes them;
  - a local run's directory (benchwright run's benchwright-results/NAME/,
    which holds summary.json and samples.ndjson);
  - a file of samples (benchwright parse's NDJSON): one run, its UID from the
    file's content, its kind and benchmark from the samples (or --kind, and
    the file's name, --benchmark-namespace), finished at its newest sample
    (or the file's time).

A run is indexed once (by UID): indexing again adds nothing.`,
		Example: `  benchwright index --db sqlite:///var/tmp/results.db benchwright-results/fio-quickstart
  benchwright parse --tool fio out.json > out.ndjson && benchwright index --db sqlite:///var/tmp/results.db out.ndjson
  PGPASSWORD=... benchwright index --db postgres://bench@db/results gs://team-bench/runs`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if db == "" {
				return fmt.Errorf("--db is needed: sqlite:///path/results.db or postgres://user@host/db")
			}
			ctx := cmd.Context()
			d, err := resultsdb.Open(ctx, db)
			if err != nil {
				return err
			}
			defer func() { _ = d.Close() }()
			for _, arg := range args {
				msg, err := indexOne(ctx, d, arg, kind, namespace)
				if err != nil {
					return fmt.Errorf("%s: %w", arg, err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %s\n", arg, msg)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&db, "db", os.Getenv("BENCHWRIGHT_RESULTS_DB"), "the results database: sqlite:///path/results.db or postgres://user@host/db (default $BENCHWRIGHT_RESULTS_DB)")
	cmd.Flags().StringVar(&kind, "kind", "", "a samples file's kind when its samples do not say (StorageBenchmark, MPIBenchmark, NetworkBenchmark)")
	cmd.Flags().StringVar(&namespace, "benchmark-namespace", "", "a samples file's namespace when its samples do not say")
	return cmd
}

// indexOne indexes what arg names and says what it did.
func indexOne(ctx context.Context, db *resultsdb.DB, arg, kind, namespace string) (string, error) {
	if info, err := os.Stat(arg); err == nil && !info.IsDir() {
		return indexSamplesFile(ctx, db, arg, info.ModTime(), kind, namespace)
	}
	raw := arg
	if !strings.Contains(arg, "://") {
		abs, err := filepath.Abs(arg)
		if err != nil {
			return "", err
		}
		if _, err := os.Stat(abs); err != nil {
			return "", err
		}
		raw = "file://" + abs
	}
	store, err := artifacts.Open(ctx, raw)
	if err != nil {
		return "", err
	}
	defer func() { _ = store.Close() }()
	if local, err := store.Exists(ctx, results.SummaryFile); err != nil {
		return "", err
	} else if local {
		return indexLocalRun(ctx, db, store)
	}
	res, err := resultsdb.Backfill(ctx, db, store)
	if err != nil {
		return "", err
	}
	for _, e := range res.Errors {
		fmt.Fprintf(os.Stderr, "benchwright: %v\n", e)
	}
	return fmt.Sprintf("%d run(s) indexed, %d there already, %d unfinished, %d unreadable", res.Indexed, res.Known, res.Unfinished, res.Failed), nil
}

// indexLocalRun indexes the run whose summary.json is at the store's root.
func indexLocalRun(ctx context.Context, db *resultsdb.DB, store *artifacts.Store) (string, error) {
	data, err := store.Get(ctx, results.SummaryFile)
	if err != nil {
		return "", err
	}
	var sum results.RunSummary
	if err := json.Unmarshal(data, &sum); err != nil {
		return "", fmt.Errorf("%s is not a run's summary: %w", store.URI(results.SummaryFile), err)
	}
	added, err := db.Index(ctx, resultsdb.RunOf(sum, store.URI("")), resultsdb.StoredSamples(ctx, store, ""))
	return addedMessage(sum.Kind, sum.Name, sum.RunUID, added), err
}

// indexSamplesFile indexes a file of samples as one run.
func indexSamplesFile(ctx context.Context, db *resultsdb.DB, path string, modified time.Time, kind, namespace string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	var samples []results.Sample
	if _, err := results.DecodeNDJSON(ctx, io.TeeReader(f, h), func(s results.Sample) { samples = append(samples, s) }); err != nil {
		return "", fmt.Errorf("not a file of samples (benchwright parse's NDJSON): %w", err)
	}
	if len(samples) == 0 {
		return "", fmt.Errorf("no samples in it")
	}
	run := resultsdb.Run{UID: "import-" + hex.EncodeToString(h.Sum(nil))[:16], Kind: kind, Namespace: namespace,
		Name: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), Location: "file://" + path, Finished: modified.UTC()}
	var newest time.Time
	for _, s := range samples {
		if run.Kind == "" {
			run.Kind = s.Kind
		}
		if run.Namespace == "" {
			run.Namespace = s.Namespace
		}
		if s.Benchmark != "" {
			run.Name = s.Benchmark
		}
		if s.Timestamp.After(newest) {
			newest = s.Timestamp
		}
	}
	if run.Kind == "" {
		return "", fmt.Errorf("its samples name no kind: give --kind (StorageBenchmark, MPIBenchmark, NetworkBenchmark)")
	}
	if !newest.IsZero() {
		run.Finished = newest.UTC()
	}
	run.Started = run.Finished
	added, err := db.Index(ctx, run, resultsdb.SamplesOf(samples))
	return addedMessage(run.Kind, run.Name, run.UID, added), err
}

func addedMessage(kind, name, uid string, added bool) string {
	if !added {
		return fmt.Sprintf("%s %s (%s) is there already", kind, name, uid)
	}
	return fmt.Sprintf("%s %s (%s) indexed", kind, name, uid)
}
