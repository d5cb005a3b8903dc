package netbench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/benchwright/benchwright/internal/topology"
)

// loopback is the address of both ends of an intra-node step.
const loopback = "127.0.0.1"

// Runner runs one node's share of a plan.
type Runner struct {
	Input Input
	Steps []Step
	Slot  int
	// Node names the node in the report.
	Node     string
	Topology *topology.Topology
	// Self is this node's address for inter-node steps (the pod's IP).
	Self string
	// Peers are the host names of every slot's runner, for inter-node steps,
	// each optionally with the port of its control server (default
	// ControlPort).
	Peers []string
	// ControlPort is where this runner answers its peers; default ControlPort.
	ControlPort int
	// Env is added to the tools' environment (PATH for a local run).
	Env []string
	// StepTimeout bounds each step: the wait for the peer and the run.
	StepTimeout time.Duration
	// Progress reports each step; nil is quiet.
	Progress func(format string, args ...any)
	// Listening tells whether a server listens on a port; default /proc/net.
	Listening func(port int) bool
	// Linger keeps the control port open after a failure, so that peers
	// learn of it instead of waiting out their timeout.
	Linger time.Duration
}

// Run runs the node's steps in plan order and returns its report; the
// report says which step failed, if one did, and Run stops there.
func (r *Runner) Run(ctx context.Context) *Report {
	rep := &Report{Slot: r.Slot, Node: r.Node, Topology: r.Topology, Plan: Digest(r.Steps), AllowedCPUs: allowedCPUs()}
	ctl := newControl(rep.Plan)
	if r.needsControl() {
		stop, err := ctl.serve(cmp.Or(r.ControlPort, ControlPort))
		if err != nil {
			rep.Error = fmt.Sprintf("the control port: %v", err)
			return rep
		}
		defer stop()
	}
	if err := r.checkCPUs(); err != nil {
		rep.Error = err.Error()
		ctl.fail(rep.Error)
		r.linger(ctx)
		return rep
	}
	mine := 0
	for _, s := range r.Steps {
		if s.Involves(r.Slot) {
			mine++
		}
	}
	n := 0
	for _, s := range r.Steps {
		if !s.Involves(r.Slot) {
			continue
		}
		n++
		sr := r.runStep(ctx, ctl, s)
		r.progress("step %d/%d %s %s (%s, %s): %s", n, mine, s.Test, s.Pair.Name(), s.Pair.Scope, sr.Role, outcome(sr))
		rep.Steps = append(rep.Steps, sr)
		if sr.Error != "" {
			rep.Error = fmt.Sprintf("step %d (%s %s) failed: %s", s.Index, s.Test, s.Pair.Name(), sr.Error)
			ctl.fail(fmt.Sprintf("node %d (%s) stopped: %s", r.Slot, r.Node, rep.Error))
			r.linger(ctx)
			return rep
		}
	}
	return rep
}

func outcome(sr StepReport) string {
	if sr.Error != "" {
		return "failed: " + sr.Error
	}
	return fmt.Sprintf("done in %.1fs", sr.Seconds)
}

func (r *Runner) progress(format string, args ...any) {
	if r.Progress != nil {
		r.Progress(format, args...)
	}
}

// needsControl: only inter-node steps need the control port.
func (r *Runner) needsControl() bool {
	return slices.ContainsFunc(r.Steps, func(s Step) bool {
		return s.Involves(r.Slot) && s.Pair.Server.Node != s.Pair.Client.Node
	})
}

func (r *Runner) linger(ctx context.Context) {
	if r.Linger <= 0 || !r.needsControl() {
		return
	}
	t := time.NewTimer(r.Linger)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// checkCPUs fails early when a CPU of this node's steps is outside the
// runner's cpuset: taskset could not pin to it.
func (r *Runner) checkCPUs() error {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil // not Linux affinity: let taskset say
	}
	for _, s := range r.Steps {
		for _, e := range []End{s.Pair.Server, s.Pair.Client} {
			if e.Node == r.Slot && !set.IsSet(e.CPU) {
				return fmt.Errorf("CPU %d of pair %s is not in this container's cpuset (%s): a pod with whole CPUs under the static CPU manager gets only those; give the pod no CPU limit, or pick CPUs from the cpuset", e.CPU, s.Pair.Name(), allowedCPUs())
			}
		}
	}
	return nil
}

// allowedCPUs is the runner's cpuset in list notation.
func allowedCPUs() string {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return ""
	}
	var ids []int
	for c := range 4096 {
		if set.IsSet(c) {
			ids = append(ids, c)
		}
	}
	return topology.FormatList(ids)
}

// runStep runs one step in this node's role.
func (r *Runner) runStep(ctx context.Context, ctl *control, s Step) StepReport {
	ctx, cancel := context.WithTimeoutCause(ctx, r.StepTimeout, fmt.Errorf("the step took longer than %s", r.StepTimeout))
	defer cancel()
	began := time.Now()
	var sr StepReport
	switch s.Pair.Server.Node {
	case s.Pair.Client.Node:
		sr = r.runBoth(ctx, s)
	case r.Slot:
		sr = r.serve(ctx, ctl, s)
	default:
		sr = r.connect(ctx, s)
	}
	sr.Step, sr.Seconds, sr.Started = s, time.Since(began).Seconds(), began.UnixMilli()
	return sr
}

// runBoth runs server and client here over loopback.
func (r *Runner) runBoth(ctx context.Context, s Step) StepReport {
	sr := StepReport{Role: RoleBoth}
	srv := start(ServerArgv(r.Input, s, loopback), r.Env)
	if err := r.waitListening(ctx, srv, s); err != nil {
		sr.ServerOutput, sr.ExitCode, sr.Error = srv.out.String(), srv.code, err.Error()
		return sr
	}
	sr.Argv = ClientArgv(r.Input, s, loopback, loopback)
	cli := start(sr.Argv, r.Env)
	sr.ExitCode = cli.wait(ctx, "the client")
	sr.Output = cli.out.String()
	r.finishServer(ctx, srv, &sr)
	return sr
}

// serve runs the server of an inter-node step and tells the client's node
// through the control port when it listens.
func (r *Runner) serve(ctx context.Context, ctl *control, s Step) StepReport {
	sr := StepReport{Role: RoleServer}
	sr.Argv = ServerArgv(r.Input, s, r.Self)
	srv := start(sr.Argv, r.Env)
	if err := r.waitListening(ctx, srv, s); err != nil {
		sr.ServerOutput, sr.ExitCode, sr.Error = srv.out.String(), srv.code, err.Error()
		return sr
	}
	ctl.set(s.Index, stepReady)
	sr.ExitCode = srv.wait(ctx, "the server")
	ctl.set(s.Index, stepDone)
	sr.ServerOutput = srv.out.String()
	if sr.ExitCode != 0 {
		sr.Error = fmt.Sprintf("the server exited with code %d: %s", sr.ExitCode, tail(sr.ServerOutput))
	}
	return sr
}

// connect waits for the server's node to say its server listens, then runs
// the client against it.
func (r *Runner) connect(ctx context.Context, s Step) StepReport {
	sr := StepReport{Role: RoleClient}
	peer := r.peer(s.Pair.Server.Node)
	addr, err := waitReady(ctx, peer, s.Index, Digest(r.Steps))
	if err != nil {
		sr.Error, sr.ExitCode = err.Error(), exitTimedOut
		return sr
	}
	sr.Argv = ClientArgv(r.Input, s, r.Self, addr)
	cli := start(sr.Argv, r.Env)
	sr.ExitCode = cli.wait(ctx, "the client")
	sr.Output = cli.out.String()
	if sr.ExitCode != 0 {
		sr.Error = fmt.Sprintf("the client exited with code %d: %s", sr.ExitCode, tail(sr.Output))
	}
	return sr
}

func (r *Runner) peer(slot int) string {
	if slot < len(r.Peers) {
		return r.Peers[slot]
	}
	return ""
}

// serverPort is the port that listens once a server is ready: fabtests'
// out-of-band socket where it has one, else the step's port (iperf3's own,
// or a msg endpoint's passive endpoint).
func (r *Runner) serverPort(s Step) int {
	if r.Input.IPerf3 == nil && outOfBand(s.Test) {
		return s.Port() + 1
	}
	return s.Port()
}

// waitListening waits until the server listens, or fails when it exits or
// the step's time runs out.
func (r *Runner) waitListening(ctx context.Context, srv *process, s Step) error {
	check := r.Listening
	if check == nil {
		check = listening
	}
	port := r.serverPort(s)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if check(port) {
			return nil
		}
		if srv.exited() {
			return fmt.Errorf("the server exited with code %d before it listened on port %d: %s", srv.code, port, tail(srv.out.String()))
		}
		select {
		case <-ctx.Done():
			srv.wait(ctx, "the server")
			return fmt.Errorf("the server did not listen on port %d: %w", port, context.Cause(ctx))
		case <-tick.C:
		}
	}
}

// finishServer waits for the server of a step whose client ended: it exits
// on its own after a run; after a failed client it is stopped.
func (r *Runner) finishServer(ctx context.Context, srv *process, sr *StepReport) {
	grace := 10 * time.Second
	if sr.ExitCode != 0 {
		grace = time.Second
	}
	gctx, cancel := context.WithTimeoutCause(ctx, grace, errors.New("the client had ended"))
	defer cancel()
	code := srv.wait(gctx, "the server")
	sr.ServerOutput = srv.out.String()
	switch {
	case sr.ExitCode != 0:
		sr.Error = fmt.Sprintf("the client exited with code %d: %s", sr.ExitCode, tail(sr.Output))
	case code != 0:
		sr.ExitCode = code
		sr.Error = fmt.Sprintf("the server exited with code %d: %s", code, tail(sr.ServerOutput))
	}
}

// waitReady polls the server node's control port until its server of step
// listens, and returns the address that said so. The peer's name may have
// more than one address (the pod of a lost attempt, terminating, still
// published under it): each is asked, and the client connects to the one
// that answered, never merely the first the name gives.
func waitReady(ctx context.Context, peer string, step int, plan string) (string, error) {
	if peer == "" {
		return "", fmt.Errorf("no address for the server's node")
	}
	client := &http.Client{Timeout: 5 * time.Second}
	host, port, err := net.SplitHostPort(peer)
	if err != nil {
		host, port = peer, strconv.Itoa(ControlPort)
	}
	var last string
	for {
		addrs, err := resolve(ctx, host)
		if err != nil {
			last = err.Error()
		}
		refused := 0 // addresses that answered no for good
		for _, addr := range addrs {
			url := fmt.Sprintf("http://%s/ready?step=%d&plan=%s", net.JoinHostPort(addr, port), step, plan)
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			resp, err := client.Do(req)
			if err != nil {
				last = err.Error()
				continue
			}
			body := readBody(resp)
			switch resp.StatusCode {
			case http.StatusOK:
				return addr, nil
			case http.StatusConflict:
				body = fmt.Sprintf("%s (this node's plan is %s)", body, plan)
				fallthrough
			case http.StatusGone:
				refused++
				if refused == len(addrs) {
					return "", fmt.Errorf("the server's node %s: %s", peer, body)
				}
			}
			last = body
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("the server's node %s was not ready for step %d: %w (last: %s)", peer, step, context.Cause(ctx), last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// lookupHost resolves a host name (a test's stand-in for DNS).
var lookupHost = net.DefaultResolver.LookupHost

// resolve gives the IPs of a host name: fabtests wants an address.
func resolve(ctx context.Context, host string) ([]string, error) {
	if net.ParseIP(host) != nil {
		return []string{host}, nil
	}
	addrs, err := lookupHost(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", host, err)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("resolving %s: no address", host)
	}
	return addrs, nil
}

// control answers a peer's question "does your server of step i listen?".
type control struct {
	plan  string
	mu    sync.Mutex
	steps map[int]stepState
	why   string // set once the runner failed
}

type stepState int

const (
	stepReady stepState = iota + 1
	stepDone
)

func newControl(plan string) *control { return &control{plan: plan, steps: map[int]stepState{}} }

func (c *control) set(step int, s stepState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.steps[step] = s
}

func (c *control) fail(why string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.why = why
}

func (c *control) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	step, err := strconv.Atoi(req.URL.Query().Get("step"))
	if req.URL.Path != "/ready" || err != nil {
		http.Error(w, "ask GET /ready?step=N&plan=DIGEST", http.StatusNotFound)
		return
	}
	if plan := req.URL.Query().Get("plan"); plan != c.plan {
		// Its own plan is not told: whoever asks learns only that it differs.
		http.Error(w, "its plan differs from the client's: the nodes read different topologies (a NetworkBenchmark needs nodes of one machine type)", http.StatusConflict)
		return
	}
	c.mu.Lock()
	st, why := c.steps[step], c.why
	c.mu.Unlock()
	switch {
	case why != "":
		http.Error(w, why, http.StatusGone)
	case st == stepReady:
		_, _ = fmt.Fprintln(w, "ready")
	case st == stepDone:
		http.Error(w, fmt.Sprintf("step %d already ran", step), http.StatusGone)
	default:
		http.Error(w, fmt.Sprintf("step %d is not ready yet", step), http.StatusTooEarly)
	}
}

// serve listens on the control port until stop is called.
func (c *control) serve(port int) (stop func(), err error) {
	ln, err := net.Listen("tcp", fmt.Sprintf(":%d", port))
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: c, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return func() { _ = srv.Close() }, nil
}

func readBody(resp *http.Response) string {
	defer resp.Body.Close()
	b := make([]byte, 4096)
	n, _ := resp.Body.Read(b)
	return string(b[:n])
}
