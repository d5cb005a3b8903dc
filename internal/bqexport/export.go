package bqexport

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"math"

	"github.com/benchwright/benchwright/internal/resultsdb"
)

// Stats counts what an export wrote.
type Stats struct {
	// Rows were written, of Runs runs (a run without samples has no row).
	Rows, Runs int
	// NonFinite samples (NaN, ±Inf) were left out: JSON has no such number,
	// and a figure that is none is no measurement to load.
	NonFinite int
}

// Export writes a row to w for each sample of the runs filter selects, as
// newline-delimited JSON, the oldest run first. It holds a page of runs and
// one row at a time, whatever the database's size.
func Export(ctx context.Context, db *resultsdb.DB, filter resultsdb.RunFilter, w io.Writer) (Stats, error) {
	var (
		st    Stats
		last  *resultsdb.Run
		nodes []Node
	)
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	err := db.EachSample(ctx, filter, func(s resultsdb.StoredSample) error {
		if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
			st.NonFinite++
			return nil
		}
		if s.Run != last {
			last, nodes = s.Run, nodesOf(s.Run.Nodes)
			st.Runs++
		}
		st.Rows++
		return enc.Encode(rowOf(s, nodes))
	})
	if err != nil {
		return st, err
	}
	return st, bw.Flush()
}
