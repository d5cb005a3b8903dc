package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/benchwright/benchwright/internal/artifactserver"
	"github.com/benchwright/benchwright/internal/regress"
	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/resultsdb"
)

// maxTrends bounds the trends of one report.
const maxTrends = 12

// trends are the runs' headline figures in their histories, read from the
// manager's results database (the artifact server's /api/history?run=UID):
// those with an earlier run. A manager without a database, or one that
// cannot be reached, gives none, and says so on warn.
func (f clusterFlags) trends(ctx context.Context, runs []compare.Run, warn io.Writer) []compare.Trend {
	rd := f.reader
	if rd == nil {
		server := strings.TrimSuffix(f.artifactServer, "/")
		if server == "" {
			var err error
			if server, err = f.forwarded(ctx); err != nil {
				fmt.Fprintf(warn, "benchwright: no history in the report: %v\n", err)
				return nil
			}
		}
		rd = &artifactReader{server: server, client: &http.Client{Timeout: time.Minute}}
	}
	var out []compare.Trend
	seen := map[string]bool{}
	for _, run := range runs {
		if run.RunUID == "" || seen[run.RunUID] {
			continue
		}
		seen[run.RunUID] = true
		v := url.Values{"run": {run.RunUID}, "namespace": {run.Namespace}, "kind": {run.Kind}}
		data, err := rd.get(ctx, rd.server+artifactserver.HistoryPath+"?"+v.Encode())
		if err != nil {
			fmt.Fprintf(warn, "benchwright: no history in the report: %v\n", err)
			return nil
		}
		var hs []resultsdb.History
		if err := json.Unmarshal(data, &hs); err != nil {
			fmt.Fprintf(warn, "benchwright: no history in the report: the manager's answer is not JSON: %v\n", err)
			return nil
		}
		for _, h := range hs {
			if len(h.Points) < 2 {
				continue
			}
			if len(out) == maxTrends {
				fmt.Fprintf(warn, "benchwright: the report shows the history of the first %d figures\n", maxTrends)
				return out
			}
			out = append(out, trendOf(run, h))
		}
	}
	return out
}

// trendOf is a configuration's history as a report's trend, titled after
// the run.
func trendOf(run compare.Run, h resultsdb.History) compare.Trend {
	c := h.Config
	title := run.Label() + ": " + c.Test + " " + c.Metric
	if size := c.Labels[results.LabelMsgSize]; size != "" {
		if n, err := strconv.ParseInt(size, 10, 64); err == nil {
			title += " at " + strconv.FormatInt(n, 10) + " B"
		}
	}
	t := compare.Trend{Title: title, Metric: c.Metric, Unit: c.Unit}
	medians := make([]float64, len(h.Points))
	for i, p := range h.Points {
		medians[i] = p.Median
		t.Points = append(t.Points, compare.TrendPoint{Finished: p.Finished, Median: p.Median, Min: p.Min, Max: p.Max})
	}
	t.Changes = regress.ChangePoints(medians, regress.Options{})
	return t
}
