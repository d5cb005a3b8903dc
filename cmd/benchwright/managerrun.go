package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/benchwright/benchwright/internal/artifactserver"
	"github.com/benchwright/benchwright/internal/report/source"
	"github.com/benchwright/benchwright/internal/results"
)

// managerRun is a run of the manager's own store read through its artifact
// server: its samples (Fetched), its series (source.MonitorSource), listed
// by GET .../monitor/ and each read as one of the run's files, and its
// nodes.json (source.NodesSource).
type managerRun struct {
	source.Fetched
	reader *artifactReader
	// forward opens a port-forward to the manager and gives its URL, when
	// the reader has no server.
	forward func(context.Context) (string, error)
	runPath string // files/<ns>/<Kind>/<name>/<uid>/
}

// base is the artifact server's URL: the reader's, else a port-forward's.
func (m managerRun) base(ctx context.Context) (string, error) {
	if m.reader.server != "" {
		return m.reader.server, nil
	}
	return m.forward(ctx)
}

// maxListingBytes bounds a monitor/ listing: MaxMonitorFiles names of a
// few hundred bytes at most.
const maxListingBytes = 1 << 20

// MonitorFiles implements source.MonitorSource for the run's own input.
func (m managerRun) MonitorFiles(ctx context.Context, inputs []string, found func(string, []source.MonitorFile, error)) error {
	if !slices.Contains(inputs, m.Name) {
		return nil
	}
	files, err := m.monitorFiles(ctx)
	found(m.Name, files, err)
	return ctx.Err()
}

// monitorFiles lists the run's series files; each opens with a GET of its
// own, read bounded by the report (it treats what it reads as hostile).
func (m managerRun) monitorFiles(ctx context.Context) ([]source.MonitorFile, error) {
	server, err := m.base(ctx)
	if err != nil {
		return nil, err
	}
	body, err := m.reader.open(ctx, server+"/"+m.runPath+"monitor/")
	var answer *answerError
	if errors.As(err, &answer) && answer.code == http.StatusBadRequest {
		// A manager older than the listing: the run's series are not
		// to be had through it, which is no fault of the run's.
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer func() { _ = body.Close() }()
	var list artifactserver.MonitorListing
	if err := json.NewDecoder(io.LimitReader(body, maxListingBytes)).Decode(&list); err != nil {
		return nil, fmt.Errorf("the manager's listing of the run's series: %w", err)
	}
	if len(list.Files) > artifactserver.MaxMonitorFiles {
		list.Files = list.Files[:artifactserver.MaxMonitorFiles]
	}
	files := make([]source.MonitorFile, 0, len(list.Files))
	for _, name := range list.Files {
		elems := strings.Split(name, "/")
		for i, e := range elems {
			elems[i] = url.PathEscape(e)
		}
		target := server + "/" + m.runPath + strings.Join(elems, "/")
		files = append(files, source.MonitorFile{Name: name,
			Open: func(ctx context.Context) (io.ReadCloser, error) { return m.reader.open(ctx, target) }})
	}
	return files, nil
}

// RunNodes implements source.NodesSource for the run's own input: its
// nodes.json, none when the server has none (a run stored before it).
func (m managerRun) RunNodes(ctx context.Context, inputs []string, found func(string, []results.NodeInfo)) error {
	if !slices.Contains(inputs, m.Name) {
		return nil
	}
	server, err := m.base(ctx)
	if err != nil {
		return err
	}
	body, err := m.reader.open(ctx, server+"/"+m.runPath+source.NodesFile)
	if err != nil {
		return nil //nolint:nilerr // a run without nodes.json is marked by nothing
	}
	defer func() { _ = body.Close() }()
	if nodes := source.DecodeNodes(body); len(nodes) > 0 {
		found(m.Name, nodes)
	}
	return ctx.Err()
}
