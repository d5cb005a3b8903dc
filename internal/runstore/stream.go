package runstore

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/crashpoint"
	"github.com/benchwright/benchwright/internal/report/source"
	"github.com/benchwright/benchwright/internal/results"
)

// eachStored hands fn the run's stored samples one at a time, in their
// order; none when there are none. An error of fn stops the reading.
func (r Run) eachStored(ctx context.Context, fn func(*results.Sample) error) error {
	key, err := r.Location.SamplesNDJSON()
	if err != nil {
		return err
	}
	rd, err := r.Store.NewReader(ctx, key)
	switch {
	case errors.Is(err, artifacts.ErrNotFound):
		return nil
	case err != nil:
		return err
	}
	defer func() { _ = rd.Close() }()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var stop error
	_, err = results.DecodeNDJSON(ctx, rd, func(s results.Sample) {
		if stop == nil {
			if stop = fn(&s); stop != nil {
				cancel()
			}
		}
	})
	switch {
	case stop != nil:
		return stop
	case err != nil:
		return fmt.Errorf("reading the stored samples: %w", err)
	}
	return nil
}

// merged hands fn the samples the run has with repetition rep replaced by
// samples, in repetition order: stored ones are sorted by repetition.
func (r Run) merged(ctx context.Context, rep int, samples []results.Sample, fn func(*results.Sample) error) error {
	later := false
	err := r.eachStored(ctx, func(s *results.Sample) error {
		switch {
		case s.Repetition < rep:
			return fn(s)
		case s.Repetition > rep:
			later = true
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := range samples {
		if err := fn(&samples[i]); err != nil {
			return err
		}
	}
	if !later {
		return nil
	}
	return r.eachStored(ctx, func(s *results.Sample) error {
		if s.Repetition > rep {
			return fn(s)
		}
		return nil
	})
}

// write stores every result file, streaming the samples, so that the store
// always holds a consistent picture of the run so far.
func (r Run) write(ctx context.Context, rep int, samples []results.Sample, labelKeys map[string]bool, summaries []results.Summary, nodes map[string]results.NodeInfo) error {
	prefix, err := r.Location.Prefix()
	if err != nil {
		return err
	}
	err = r.putStream(ctx, prefix+results.SamplesNDJSONFile, "application/x-ndjson", func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		enc := json.NewEncoder(bw)
		if err := r.merged(ctx, rep, samples, func(s *results.Sample) error { return enc.Encode(s) }); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		return err
	}
	err = r.putStream(ctx, prefix+results.SamplesCSVFile, "text/csv", func(w io.Writer) error {
		cw, err := results.NewCSVWriter(w, labelKeys)
		if err != nil {
			return err
		}
		if err := r.eachStored(ctx, cw.Write); err != nil {
			return err
		}
		return cw.Flush()
	})
	if err != nil {
		return err
	}
	nodeList := make([]results.NodeInfo, 0, len(nodes))
	for _, n := range nodes {
		nodeList = append(nodeList, n)
	}
	sort.Slice(nodeList, func(i, j int) bool { return nodeList[i].Hostname < nodeList[j].Hostname })
	loc := r.Location
	files, err := results.EncodeSummaryFiles(results.RunSummary{
		Kind: loc.Kind, Namespace: loc.Namespace, Name: loc.Name, RunUID: loc.UID,
		Started: r.Started.UTC(), Finished: r.Finished.UTC().Truncate(time.Second), Nodes: nodeList, Summaries: summaries,
		Labels: r.Labels,
	})
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := r.Store.Put(ctx, prefix+f.Name, f.Data, f.ContentType); err != nil {
			return err
		}
	}
	return nil
}

// putStream stores at key what produce writes, as it writes it. An error of
// produce aborts the write: the object stays as it was.
func (r Run) putStream(ctx context.Context, key, contentType string, produce func(io.Writer) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	produced := make(chan error, 1)
	go func() {
		err := produce(crashpoint.Writer(pw, crashpoint.Uploading))
		if err != nil {
			cancel() // before the upload sees the error, so that it aborts
		}
		_ = pw.CloseWithError(err)
		produced <- err
	}()
	err := r.Store.PutReader(ctx, key, pr, contentType)
	_ = pr.CloseWithError(errors.New("the upload stopped")) // unblocks produce
	if perr := <-produced; perr != nil {
		return perr
	}
	return err
}

// storedRun is the run's stored samples as a report source.
type storedRun Run

// Samples implements source.Source.
func (s storedRun) Samples(ctx context.Context, add func(string, results.Sample)) error {
	name := s.Location.Name
	return Run(s).eachStored(ctx, func(x *results.Sample) error {
		add(name, *x)
		return nil
	})
}

// MonitorFiles implements source.MonitorSource: the run's series, under
// monitor/ beside its samples.
func (s storedRun) MonitorFiles(ctx context.Context, inputs []string, found func(string, []source.MonitorFile, error)) error {
	prefix, err := s.Location.Prefix()
	if err != nil {
		return err
	}
	for _, in := range inputs {
		if in == s.Location.Name {
			files, err := source.StoreMonitorFiles(ctx, s.Store, prefix)
			found(in, files, err)
		}
	}
	return nil
}
