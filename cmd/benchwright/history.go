package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/benchwright/benchwright/internal/artifactserver"
	"github.com/benchwright/benchwright/internal/historycheck"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/resultsdb"
)

// historyFlags are history's own flags.
type historyFlags struct {
	q             resultsdb.Query
	since         string
	db            string
	format        string
	allNamespaces bool
	// check runs the regression detector on each configuration's newest run.
	check bool
	// acknowledge is the run whose change the matching configurations
	// accept, note why.
	acknowledge, note string
}

func newHistoryCommand() *cobra.Command {
	var (
		flags   = historyFlags{format: "text"}
		cluster clusterFlags
	)
	cmd := &cobra.Command{
		Use:   "history --metric METRIC [-l LABEL=VALUE,...]",
		Short: "Print a configuration's runs over time, from the results database",
		Long: `Print, for each configuration the query matches, its runs oldest first: when
each finished, its median over the counted repetitions, the range, the CV,
and the change from the run before, and the run-to-run CV of the medians
(over the last 10 runs: the noise the detector sees).

--check runs the manager's regression detector on each configuration's
newest run, with the run's other headline figures as the manager does: the
verdict (Regressed, Improved, Outlier, Steady, TooFewRuns) since which run,
the change with its 95 % interval, the levels before and after, the change
points, the runs that look like one-offs, and the smallest change a step
detects within 3 runs at the configuration's noise. A change stays
reported until a later change point, or until --acknowledge RUN accepts it:
the configurations are then checked from that run on.

A configuration is what makes runs comparable: the kind, the namespace, the
benchmark's name as written (a campaign's cell by its campaign's names), the
pool and tuning, the test, metric and unit, and the setup labels (machine
type, placement, threads per core, MPI, message size, I/O shape, processes,
tool, and the benchmark's own axis labels x-NAME). What may change between
runs of one configuration is left out: the node, the kernel and node image,
the measured frequency. --identity-label adds a label to it.

The history is read from the manager's results database, through a
port-forward to its artifact server (as results does), or from --db: a
SQLite file (sqlite:///path) or a PostgreSQL server (postgres://..., the
password from PGPASSWORD).`,
		Example: `  benchwright history --metric read_iops -l machine_type=c3-standard-8 --test randread-4k
  benchwright history --metric latency --benchmark osu-latency -l msg_size=8 --since 720h
  benchwright history --metric read_iops --db sqlite:///var/lib/benchwright/results.db -A --format csv
  benchwright history --metric read_iops --db sqlite:///var/tmp/results.db -A --check`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			q, err := flags.query(cluster)
			if err != nil {
				return err
			}
			if flags.acknowledge != "" {
				return flags.acknowledgeRun(cmd.Context(), cmd.OutOrStdout(), q)
			}
			hs, checks, err := flags.read(cmd.Context(), cluster, q)
			if err != nil {
				return err
			}
			return writeHistory(cmd.OutOrStdout(), flags.format, hs, checks)
		},
	}
	f := cmd.Flags()
	f.StringVar(&flags.q.Metric, "metric", "", "the metric (read_iops, write_bw, latency, bandwidth, ...; required)")
	f.StringVar(&flags.q.Test, "test", "", "the test (a fio job, an OSU or IMB test, a netbench test)")
	f.StringVar(&flags.q.Kind, "kind", "", "StorageBenchmark, MPIBenchmark or NetworkBenchmark")
	f.StringVar(&flags.q.Series, "benchmark", "", "the benchmark's name as written (a campaign cell's: its campaign's benchmark entry)")
	f.StringVar(&flags.since, "since", "", "runs finished since: a duration back from now (720h) or a date (2026-11-01, RFC 3339)")
	f.IntVar(&flags.q.Runs, "runs", resultsdb.DefaultRuns, "each configuration's newest runs")
	f.StringSliceVar(&flags.q.Identity.Extra, "identity-label", nil, "a sample label that also tells configurations apart (node, kernel, ...)")
	f.StringVar(&flags.db, "db", "", "read this database instead of the manager's: sqlite:///path/results.db or postgres://user@host/db")
	f.BoolVarP(&flags.allNamespaces, "all-namespaces", "A", false, "every namespace's runs")
	f.StringVar(&flags.format, "format", flags.format, "output format: text, csv, json")
	f.StringVar(&flags.acknowledge, "acknowledge", "", "accept the change at this run (its UID or the UID's start) in every configuration the query matches: its history is checked from that run on (needs --db)")
	f.StringVar(&flags.note, "note", "", "why, with --acknowledge")
	f.BoolVar(&flags.check, "check", false, "check each configuration's newest run as the manager does: its verdict, change points, levels, one-offs and the smallest change it can see")
	_ = cmd.MarkFlagRequired("metric")
	cluster.register(cmd)
	f.Lookup("selector").Usage = "sample labels the figures must carry, KEY=VALUE[,KEY=VALUE] (machine_type=c3-standard-8,msg_size=8)"
	f.Lookup("namespace").Usage = "the runs' namespace (default: the context's; with --db: every namespace unless given)"
	return cmd
}

// query completes the query from the flags.
func (f historyFlags) query(cluster clusterFlags) (resultsdb.Query, error) {
	q := f.q
	labels, err := equalities(cluster.selector)
	if err != nil {
		return q, err
	}
	q.Labels = labels
	if f.since != "" {
		since, err := parseSince(f.since, time.Now())
		if err != nil {
			return q, err
		}
		q.Since = since
	}
	switch {
	case f.allNamespaces:
	case *cluster.config.Namespace != "":
		q.Namespace = *cluster.config.Namespace
	case f.db == "":
		ns, err := cluster.namespace()
		if err != nil {
			return q, err
		}
		q.Namespace = ns
	}
	return q, nil
}

// equalities parses -l: KEY=VALUE pairs, comma-separated.
func equalities(s string) (map[string]string, error) {
	if s == "" {
		return nil, nil
	}
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || k == "" || strings.ContainsAny(k, "!<>") || strings.HasPrefix(v, "=") {
			return nil, fmt.Errorf("-l %q: want KEY=VALUE pairs separated by commas (only equality)", s)
		}
		out[k] = v
	}
	return out, nil
}

// parseSince reads --since: a duration back from now, a date, or a time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.DateOnly, time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("--since %q: want a duration (720h) or a date (2026-11-01, or RFC 3339)", s)
}

// read answers the query from --db, else from the manager, with the
// checks of the configurations' newest runs when --check.
func (f historyFlags) read(ctx context.Context, cluster clusterFlags, q resultsdb.Query) ([]resultsdb.History, map[string]historycheck.Result, error) {
	if f.db != "" {
		db, err := resultsdb.Open(ctx, f.db)
		if err != nil {
			return nil, nil, err
		}
		defer func() { _ = db.Close() }()
		hs, err := db.History(ctx, q)
		if err != nil || !f.check {
			return hs, nil, err
		}
		checks, err := checkNewest(hs, func(uid string) (historycheck.Result, error) { return historycheck.Run(ctx, db, uid) })
		return hs, checks, err
	}
	server := strings.TrimSuffix(cluster.artifactServer, "/")
	if server == "" {
		var err error
		if server, err = cluster.forwarded(ctx); err != nil {
			return nil, nil, fmt.Errorf("the history is in the manager's results database, read through a port-forward to the manager (or give --db): %w", err)
		}
	}
	rd := &artifactReader{client: &http.Client{Timeout: 2 * time.Minute}}
	data, err := rd.get(ctx, server+artifactserver.HistoryPath+"?"+artifactserver.HistoryValues(q).Encode())
	if err != nil {
		return nil, nil, err
	}
	var hs []resultsdb.History
	if err := json.Unmarshal(data, &hs); err != nil {
		return nil, nil, fmt.Errorf("the manager's history is not JSON: %w", err)
	}
	if !f.check {
		return hs, nil, nil
	}
	checks, err := checkNewest(hs, func(uid string) (historycheck.Result, error) {
		return managerCheck(ctx, rd, server, uid, hs)
	})
	return hs, checks, err
}

// acknowledgeRun accepts the change at run f.acknowledge in each history
// the query matches that has the run.
func (f historyFlags) acknowledgeRun(ctx context.Context, w io.Writer, q resultsdb.Query) error {
	if f.db == "" {
		return fmt.Errorf("--acknowledge writes the results database: give --db (the manager's, sqlite:///... or postgres://...)")
	}
	db, err := resultsdb.Open(ctx, f.db)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	hs, err := db.History(ctx, q)
	if err != nil {
		return err
	}
	done := 0
	for _, h := range hs {
		for _, p := range h.Points {
			if p.RunUID != f.acknowledge && !strings.HasPrefix(p.RunUID, f.acknowledge) && resultsdb.ShortUID(p.RunUID) != f.acknowledge {
				continue
			}
			if err := db.Acknowledge(ctx, h.Config, p.RunUID, f.note); err != nil {
				return err
			}
			fmt.Fprintf(w, "acknowledged: %s from run %s on\n", h.Config, runName(p))
			done++
			break
		}
	}
	if done == 0 {
		return fmt.Errorf("--acknowledge %q: no configuration the query matches has that run (--runs, --since and -l narrow what is searched)", f.acknowledge)
	}
	return nil
}

// checkNewest checks each history's newest run once, by its UID.
func checkNewest(hs []resultsdb.History, check func(uid string) (historycheck.Result, error)) (map[string]historycheck.Result, error) {
	out := map[string]historycheck.Result{}
	for _, h := range hs {
		if len(h.Points) == 0 {
			continue
		}
		uid := h.Points[len(h.Points)-1].RunUID
		if _, done := out[uid]; done {
			continue
		}
		res, err := check(uid)
		if err != nil {
			return nil, err
		}
		out[uid] = res
	}
	return out, nil
}

// managerCheck asks the manager's artifact server for a run's check.
func managerCheck(ctx context.Context, rd *artifactReader, server, uid string, hs []resultsdb.History) (historycheck.Result, error) {
	v := url.Values{"run": {uid}}
	for _, h := range hs {
		if len(h.Points) > 0 && h.Points[len(h.Points)-1].RunUID == uid {
			v.Set("namespace", h.Config.Namespace)
			v.Set("kind", h.Config.Kind)
			break
		}
	}
	data, err := rd.get(ctx, server+artifactserver.HistoryCheckPath+"?"+v.Encode())
	if err != nil {
		return historycheck.Result{}, err
	}
	var res historycheck.Result
	if err := json.Unmarshal(data, &res); err != nil {
		return res, fmt.Errorf("the manager's check is not JSON: %w", err)
	}
	return res, nil
}

// checked is a history's finding at its newest run, if checked.
func checked(h resultsdb.History, checks map[string]historycheck.Result) (historycheck.Finding, bool) {
	if len(h.Points) == 0 || checks == nil {
		return historycheck.Finding{}, false
	}
	return checks[h.Points[len(h.Points)-1].RunUID].Finding(h.Config)
}

func writeHistory(w io.Writer, format string, hs []resultsdb.History, checks map[string]historycheck.Result) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if checks != nil {
			return enc.Encode(checkedJSON(hs, checks))
		}
		return enc.Encode(hs)
	case "csv":
		if checks != nil {
			return writeChecksCSV(w, hs, checks)
		}
		return writeHistoryCSV(w, hs)
	case "text":
	default:
		return fmt.Errorf("--format %q: want text, csv or json", format)
	}
	if len(hs) == 0 {
		_, err := fmt.Fprintln(w, "No runs match: check the metric's name (benchwright results --all lists a run's), the labels and the namespace (-A for every one).")
		return err
	}
	for i, h := range hs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s, in %s\n", h.Config, h.Config.Unit)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  FINISHED (UTC)\tRUN\tREPS\tMEDIAN\tMIN\tMAX\tRUN-TO-RUN CV\tVS PREVIOUS")
		for j, p := range h.Points {
			change := ""
			if j > 0 && h.Points[j-1].Median != 0 {
				change = fmt.Sprintf("%+.1f%%", 100*(p.Median/h.Points[j-1].Median-1))
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", p.Finished.Format("2006-01-02 15:04"), runName(p),
				p.N, results.FormatValue(p.Median), results.FormatValue(p.Min), results.FormatValue(p.Max), runToRunCV(h.Points[:j+1]), change)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if f, ok := checked(h, checks); ok {
			writeFinding(w, f, checks[h.Points[len(h.Points)-1].RunUID])
		}
	}
	return nil
}

// runName is a run as a person finds it: its object's name and the start
// of its UID (a campaign's cells share a series, not a name).
func runName(p resultsdb.Point) string {
	return p.Name + " " + resultsdb.ShortUID(p.RunUID)
}

// cvRuns is how many of the newest runs the run-to-run CV is taken over.
const cvRuns = 10

// runToRunCV is the coefficient of variation of the medians of the newest
// cvRuns of points (at least 3), on their logs as the detector sees them.
func runToRunCV(points []resultsdb.Point) string {
	points = points[max(0, len(points)-cvRuns):]
	if len(points) < 3 {
		return "-"
	}
	logs := make([]float64, 0, len(points))
	for _, p := range points {
		if p.Median <= 0 {
			return "-"
		}
		logs = append(logs, math.Log(p.Median))
	}
	sd := results.Compute(logs).Stddev
	return fmt.Sprintf("%.1f%%", 100*math.Sqrt(math.Expm1(sd*sd)))
}

func writeHistoryCSV(w io.Writer, hs []resultsdb.History) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"configuration", "kind", "namespace", "benchmark", "pool", "tuning", "test", "metric", "unit",
		"finished", "run_uid", "run", "campaign", "n", "median", "mean", "stddev", "min", "max"})
	for _, h := range hs {
		c := h.Config
		for _, p := range h.Points {
			f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
			_ = cw.Write([]string{c.String(), c.Kind, c.Namespace, c.Series, c.Pool, c.Tuning, c.Test, c.Metric, c.Unit,
				p.Finished.Format(time.RFC3339), p.RunUID, p.Name, p.Campaign, strconv.Itoa(p.N),
				f(p.Median), f(p.Mean), f(p.StdDev), f(p.Min), f(p.Max)})
		}
	}
	cw.Flush()
	return cw.Error()
}
