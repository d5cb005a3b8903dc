package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/benchwright/benchwright/internal/bqexport"
	"github.com/benchwright/benchwright/internal/resultsdb"
)

// The files an export writes in --out.
const (
	exportSamplesFile = "samples.ndjson"
	exportSchemaFile  = "schema.json"
)

type exportFlags struct {
	format, out, since, db string
	filter                 resultsdb.RunFilter
}

func newExportCommand() *cobra.Command {
	flags := exportFlags{format: "bigquery"}
	cmd := &cobra.Command{
		Use:   "export --db URL --out DIR [--since 720h]",
		Short: "Write the results database's samples in BigQuery's load format",
		Long: `Write every sample of the results database's runs (or of those finished
since --since, of one --run-namespace or --kind) to DIR/samples.ndjson, one
newline-delimited JSON row per sample with its run's metadata (UID, kind,
namespace, benchmark, campaign, pool, tuning, start and finish, nodes) and its
configuration, test, metric, value, unit, repetition, warm-up and labels; and
the table's schema to DIR/schema.json, in BigQuery's JSON schema format. It
prints the bq load command that loads them. Samples whose value is NaN or
infinite are left out (JSON has no such number) and counted.

The export reads the database given with --db only: a SQLite file
(sqlite:///path) or a PostgreSQL server (postgres://..., the password from
PGPASSWORD), such as the managers' shared one. Unlike history, it does not go
through a port-forward to the manager: the artifact server serves histories,
not exports, so a manager's own SQLite file is exported from a copy of it.`,
		Example: `  benchwright export --db sqlite:///tmp/results.db --out export/
  benchwright export --db postgres://bench@db.internal/results --out export/ --since 720h --kind StorageBenchmark
  bq load --source_format=NEWLINE_DELIMITED_JSON perf.samples export/samples.ndjson export/schema.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return flags.run(cmd.Context(), cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&flags.format, "format", flags.format, "the export's format: bigquery (NDJSON and a schema file)")
	f.StringVar(&flags.out, "out", "", "the directory to write samples.ndjson and schema.json in (made if missing; required)")
	f.StringVar(&flags.db, "db", "", "the results database: sqlite:///path/results.db or postgres://user@host/db (required)")
	f.StringVar(&flags.since, "since", "", "runs finished since: a duration back from now (720h) or a date (2026-11-01, RFC 3339)")
	// Not -n: kubectl's flags are for the commands that read a cluster.
	f.StringVar(&flags.filter.Namespace, "run-namespace", "", "only the runs of this namespace (default: every namespace)")
	f.StringVar(&flags.filter.Kind, "kind", "", "only runs of this kind: StorageBenchmark, MPIBenchmark or NetworkBenchmark")
	_ = cmd.MarkFlagRequired("out")
	_ = cmd.MarkFlagRequired("db")
	return cmd
}

func (f exportFlags) run(ctx context.Context, stdout io.Writer) error {
	if f.format != "bigquery" {
		return fmt.Errorf("--format %q: want bigquery", f.format)
	}
	if f.since != "" {
		since, err := parseSince(f.since, time.Now())
		if err != nil {
			return err
		}
		f.filter.Since = since
	}
	db, err := resultsdb.Open(ctx, f.db)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return err
	}
	schema := filepath.Join(f.out, exportSchemaFile)
	if err := writeFileAtomic(schema, bqexport.WriteSchema); err != nil {
		return err
	}
	samples := filepath.Join(f.out, exportSamplesFile)
	var st bqexport.Stats
	err = writeFileAtomic(samples, func(w io.Writer) error {
		var err error
		st, err = bqexport.Export(ctx, db, f.filter, w)
		return err
	})
	if err != nil {
		return fmt.Errorf("exporting %s: %w", db, err)
	}
	fmt.Fprintf(stdout, "Wrote %d samples of %d runs to %s, and their schema to %s.\n", st.Rows, st.Runs, samples, schema)
	if st.NonFinite > 0 {
		fmt.Fprintf(stdout, "Left out %d samples whose value is NaN or infinite.\n", st.NonFinite)
	}
	fmt.Fprintf(stdout, "Load them into a BigQuery table with:\n  bq load --source_format=NEWLINE_DELIMITED_JSON DATASET.TABLE %s %s\n", samples, schema)
	fmt.Fprintf(stdout, "(a new table: add --time_partitioning_field=finished --time_partitioning_type=DAY --clustering_fields=kind,test,metric)\n")
	return nil
}

// writeFileAtomic writes path through write: to a temporary file beside it,
// renamed into place once whole, so a failed export leaves no partial file.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	err = errors.Join(tmp.Chmod(0o644), write(tmp), tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}
