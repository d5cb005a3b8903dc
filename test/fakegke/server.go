// Package fakegke is a GKE ClusterManager gRPC server that answers as GKE
// does, and the place where GKE's behaviour is written down. It keeps
// clusters (release channel, locations, version, maintenance exclusions) and
// their node pools, creates and deletes node pools through long-running
// operations that take a few polls (or some time, or the work of a hook),
// refuses what GKE refuses with GKE's own words (Texts): management off on a
// release channel, compact placement, Tier_1, threads per core and sysctls
// outside GKE's rules, a node-pool call while the cluster is busy (an
// upgrade window, the one-operation lock, the concurrent-operations quota);
// it records every request and injects the failures GKE reports: stockouts
// (whole or partial), quota, invalid configuration and transient errors.
//
//	srv := fakegke.Start(t, fakegke.WithCluster("projects/p/locations/us-central1-a/clusters/c"))
//	provider, err := gke.New(ctx, srv.ClientOptions()...)
//
// New and Serve run it outside a test, on any listener.
package fakegke

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/api/option"
	rpccode "google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// Version is the Kubernetes version the fake reports for node pools.
const Version = "1.33.5-gke.1000000"

// Defaults GKE fills in when a request leaves them out.
const (
	DefaultDiskSizeGb = 100
	DefaultDiskType   = "pd-balanced"
	DefaultImageType  = "COS_CONTAINERD"
)

// Server is the fake ClusterManager. Its methods are safe for concurrent use.
type Server struct {
	// The generated base answers codes.Unimplemented for the RPCs benchwright
	// never calls (clusters, upgrades, ...); gRPC requires it for forward
	// compatibility. Every node-pool RPC the provider uses is served below.
	containerpb.UnimplementedClusterManagerServer

	grpc *grpc.Server
	lis  net.Listener

	// callMu orders the node-pool creates and deletes: each is checked and
	// started (its failure hook asked) before the next.
	callMu         sync.Mutex
	mu             sync.Mutex
	clusters       map[string]map[string]*containerpb.NodePool // parent -> name -> pool
	clusterConfigs map[string]*Cluster                         // parent -> cluster
	// reconciling are the pools RECONCILING, until when (parent/nodePools/name).
	reconciling  map[string]time.Time
	work         Work
	ops          map[string]*operation // operation id -> operation
	nextOp       int
	runningPolls int
	delay        time.Duration
	now          func() time.Time
	requests     []proto.Message
	// taken are the creates GKE did not refuse (a busy cluster, a request it
	// does not accept): each answered by an operation or an injected failure.
	taken        []*containerpb.CreateNodePoolRequest
	failures     []Failure
	inject       func(*containerpb.CreateNodePoolRequest) error
	deleteInject func(*containerpb.DeleteNodePoolRequest) error
}

type operation struct {
	pb       *containerpb.Operation
	parent   string // cluster
	pool     string
	polls    int
	readyAt  time.Time
	failure  *Failure
	finished bool
	// prior is the pool's status before a delete, which a failed delete
	// leaves it in.
	prior containerpb.NodePool_Status
	// timed: done at readyAt, however often it is polled.
	timed bool
	// working: the Work hook runs; workErr is what it returned.
	working bool
	workErr error
}

// Work is an operation's work on GKE's side: creating or deleting the nodes
// of np in cluster parent. It returns when the work is done; an error fails
// the operation (a Failure keeps its code and words). Without a Work hook an
// operation is done after its polls and delay.
type Work func(ctx context.Context, typ containerpb.Operation_Type, parent string, np *containerpb.NodePool) error

// WithOperationWork runs w for each node-pool create and delete; the
// operation is DONE when w has returned.
func WithOperationWork(w Work) Option { return func(s *Server) { s.work = w } }

// Option configures a Server.
type Option func(*Server)

// WithCluster adds a cluster, projects/P/locations/L/clusters/C, as GKE
// makes it by default: on the REGULAR release channel, in the location's
// zones. Requests for any other cluster are NotFound.
func WithCluster(parent string) Option {
	return WithClusterConfig(Cluster{Parent: parent})
}

// WithRunningPolls sets how many GetOperation calls see an operation RUNNING
// before it is DONE (default 1). With 0 an operation is DONE at the first
// request after its delay, polled or not.
func WithRunningPolls(n int) Option { return func(s *Server) { s.runningPolls = n } }

// WithDelay sets how long an operation runs at least (default 0).
func WithDelay(d time.Duration) Option { return func(s *Server) { s.delay = d } }

// New makes a fake with its options; Serve serves it.
func New(opts ...Option) *Server {
	s := &Server{
		clusters:       map[string]map[string]*containerpb.NodePool{},
		clusterConfigs: map[string]*Cluster{},
		reconciling:    map[string]time.Time{},
		ops:            map[string]*operation{},
		runningPolls:   1,
		now:            time.Now,
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Serve serves the fake on lis with the gRPC server options (TLS
// credentials, for instance) until Stop.
func (s *Server) Serve(lis net.Listener, opts ...grpc.ServerOption) error {
	return s.register(lis, opts...).Serve(lis)
}

// register makes the fake's gRPC server for lis.
func (s *Server) register(lis net.Listener, opts ...grpc.ServerOption) *grpc.Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lis = lis
	s.grpc = grpc.NewServer(opts...)
	containerpb.RegisterClusterManagerServer(s.grpc, s)
	return s.grpc
}

// Start serves a fake on 127.0.0.1 until the test ends.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := New(opts...)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("fakegke: listening: %v", err)
	}
	srv := s.register(lis)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(s.Stop)
	return s
}

func (s *Server) server() *grpc.Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.grpc
}

// Stop stops serving; Start registers it as a test cleanup.
func (s *Server) Stop() {
	if srv := s.server(); srv != nil {
		srv.Stop()
	}
}

// Endpoint is the server's host:port.
func (s *Server) Endpoint() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lis.Addr().String()
}

// ClientOptions point a GKE client at the fake, without credentials.
func (s *Server) ClientOptions() []option.ClientOption {
	return []option.ClientOption{
		option.WithEndpoint(s.Endpoint()),
		option.WithoutAuthentication(),
		option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials())),
	}
}

// AddCluster adds a cluster, projects/P/locations/L/clusters/C, as
// WithCluster does.
func (s *Server) AddCluster(parent string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addCluster(Cluster{Parent: parent})
}

// Reconcile puts a running node pool in RECONCILING for d, as GKE does while
// it works on a pool (an upgrade, a repair), then back to RUNNING.
func (s *Server) Reconcile(parent, pool string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if np := s.clusters[parent][pool]; np != nil && np.Status == containerpb.NodePool_RUNNING {
		np.Status = containerpb.NodePool_RECONCILING
		s.reconciling[parent+"/nodePools/"+pool] = s.now().Add(d)
	}
}

// QueueFailures queues failures for the next CreateNodePool calls, one per
// call (Succeed lets a call through). The queue is used before Inject.
func (s *Server) QueueFailures(f ...Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, f...)
}

// SetInject sets a hook called for each CreateNodePool request not served by
// the failure queue. It returns nil to let the call through, a Failure
// (synchronous or Async), or any other error, returned as the call's error.
func (s *Server) SetInject(fn func(*containerpb.CreateNodePoolRequest) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inject = fn
}

// SetDeleteInject sets a hook called for each DeleteNodePool request that GKE
// would accept (the pool exists, no operation of it runs). It returns nil to
// let the call through or a Failure: synchronous (nothing is deleted), Async
// (the delete operation ends in error, the pool is left as it was), Lost (the
// pool is deleting, the caller gets the error) or Hang.
func (s *Server) SetDeleteInject(fn func(*containerpb.DeleteNodePoolRequest) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deleteInject = fn
}

// Requests returns copies of every request received, in order.
func (s *Server) Requests() []proto.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]proto.Message, len(s.requests))
	for i, r := range s.requests {
		out[i] = proto.Clone(r)
	}
	return out
}

// CreateRequests returns copies of the CreateNodePool requests received.
func (s *Server) CreateRequests() []*containerpb.CreateNodePoolRequest {
	var out []*containerpb.CreateNodePoolRequest
	for _, r := range s.Requests() {
		if c, ok := r.(*containerpb.CreateNodePoolRequest); ok {
			out = append(out, c)
		}
	}
	return out
}

// CreatesTaken returns copies of the CreateNodePool requests GKE took: not
// refused for a busy cluster or a node pool it does not accept.
func (s *Server) CreatesTaken() []*containerpb.CreateNodePoolRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*containerpb.CreateNodePoolRequest, len(s.taken))
	for i, r := range s.taken {
		out[i] = proto.Clone(r).(*containerpb.CreateNodePoolRequest)
	}
	return out
}

// NodePools returns copies of a cluster's node pools, by name.
func (s *Server) NodePools(parent string) []*containerpb.NodePool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance()
	return s.list(parent)
}

// FinishOperations completes every running operation now, for tests that do
// not poll.
func (s *Server) FinishOperations() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, op := range s.ops {
		s.finish(op)
	}
}

func (s *Server) record(req proto.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, proto.Clone(req))
}

// begin records req and finishes the operations that are due; it holds s.mu
// until the returned end is called: defer s.begin(req)().
func (s *Server) begin(req proto.Message) (end func()) {
	s.record(req)
	s.mu.Lock()
	s.advance()
	return s.mu.Unlock
}

// CreateNodePool starts creating a node pool: PROVISIONING until its operation
// is DONE, then RUNNING (or ERROR for an asynchronous failure).
func (s *Server) CreateNodePool(ctx context.Context, req *containerpb.CreateNodePoolRequest) (*containerpb.Operation, error) {
	s.record(req)
	if req.GetProjectId() != "" || req.GetZone() != "" || req.GetClusterId() != "" { //nolint:staticcheck // checking that nobody uses them
		return nil, status.Error(codes.InvalidArgument, "fakegke: use parent, not the deprecated project_id/zone/cluster_id")
	}
	np := req.GetNodePool()
	if err := checkNodePool(np); err != nil {
		return nil, err
	}
	op, failure, err := s.admitCreate(req)
	return s.answer(ctx, op, failure, err)
}

// admitCreate checks a create and starts its operation. GKE's refusals come
// before any injected failure, which is GKE's answer to a call it took;
// callMu keeps the cluster as checked until the operation starts.
func (s *Server) admitCreate(req *containerpb.CreateNodePoolRequest) (*operation, *Failure, error) {
	s.callMu.Lock()
	defer s.callMu.Unlock()
	if err := s.creatable(req); err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	s.taken = append(s.taken, proto.Clone(req).(*containerpb.CreateNodePoolRequest))
	s.mu.Unlock()
	failure, err := s.failureFor(req)
	if err != nil {
		return nil, nil, err
	}
	if failure != nil && !failure.Async && !failure.Lost && !failure.Hang && failure.Slow == 0 {
		return nil, nil, failure.status().Err()
	}
	op, err := s.create(req, failure)
	return op, failure, err
}

// creatable is GKE's refusal of a create, if any: an unknown cluster, a node
// pool GKE does not accept there, a busy cluster.
func (s *Server) creatable(req *containerpb.CreateNodePoolRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance()
	c, ok := s.clusterConfigs[req.GetParent()]
	if !ok {
		return answer(TextNotFound, req.GetParent())
	}
	if err := checkCreate(c, req.GetNodePool()); err != nil {
		return err
	}
	return s.busy(req.GetParent())
}

func (s *Server) create(req *containerpb.CreateNodePoolRequest, failure *Failure) (*operation, error) {
	np := req.GetNodePool()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance()
	pools, ok := s.clusters[req.GetParent()]
	if !ok {
		return nil, answer(TextNotFound, req.GetParent())
	}
	if err := checkCreate(s.clusterConfigs[req.GetParent()], np); err != nil {
		return nil, err
	}
	if err := s.busy(req.GetParent()); err != nil {
		return nil, err
	}
	if _, dup := pools[np.GetName()]; dup {
		return nil, answer(TextAlreadyExists, req.GetParent()+"/nodePools/"+np.GetName())
	}
	stored := proto.Clone(np).(*containerpb.NodePool)
	stored.Status = containerpb.NodePool_PROVISIONING
	stored.SelfLink = "https://container.googleapis.com/v1/" + req.GetParent() + "/nodePools/" + np.GetName()
	pools[np.GetName()] = stored
	var opFailure *Failure
	if failure != nil && failure.Async {
		opFailure = failure
	}
	op := s.startOp(req.GetParent(), np.GetName(), containerpb.Operation_CREATE_NODE_POOL, opFailure)
	s.startWork(op, stored)
	return op, nil
}

// answer is a call's answer: its operation, or the error that replaced it.
// A hung call's answer waits until the caller gave up.
func (s *Server) answer(ctx context.Context, op *operation, failure *Failure, err error) (*containerpb.Operation, error) {
	if failure != nil && failure.Hang {
		<-ctx.Done()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case err != nil:
		return nil, err
	case failure == nil:
	case failure.Hang:
		return nil, status.Error(codes.DeadlineExceeded, "context deadline exceeded")
	case failure.Lost:
		return nil, failure.status().Err()
	case failure.Slow > 0:
		op.readyAt = op.readyAt.Add(failure.Slow)
	}
	return proto.Clone(op.pb).(*containerpb.Operation), nil
}

// failureFor takes the next queued failure or asks the Inject hook.
func (s *Server) failureFor(req *containerpb.CreateNodePoolRequest) (*Failure, error) {
	s.mu.Lock()
	if len(s.failures) > 0 {
		f := s.failures[0]
		s.failures = s.failures[1:]
		s.mu.Unlock()
		if f.none() {
			return nil, nil
		}
		return &f, nil
	}
	inject := s.inject
	s.mu.Unlock()
	if inject == nil {
		return nil, nil
	}
	return hookFailure(inject(proto.Clone(req).(*containerpb.CreateNodePoolRequest)))
}

// hookFailure is the Failure an inject hook returned: nil for none, or any
// other error as the call's error.
func hookFailure(err error) (*Failure, error) {
	if err == nil {
		return nil, nil
	}
	var f Failure
	if errors.As(err, &f) {
		if f.none() {
			return nil, nil
		}
		return &f, nil
	}
	if _, ok := status.FromError(err); ok {
		return nil, err
	}
	return nil, status.Error(codes.Unknown, err.Error())
}

// DeleteNodePool starts deleting a node pool: STOPPING until its operation is
// DONE, then gone. A pool with an operation still running is refused the way
// GKE refuses it (FailedPrecondition, "incompatible operation").
func (s *Server) DeleteNodePool(ctx context.Context, req *containerpb.DeleteNodePoolRequest) (*containerpb.Operation, error) {
	s.record(req)
	op, failure, err := s.admitDelete(req)
	return s.answer(ctx, op, failure, err)
}

// admitDelete checks a delete and starts its operation, as admitCreate.
func (s *Server) admitDelete(req *containerpb.DeleteNodePoolRequest) (*operation, *Failure, error) {
	s.callMu.Lock()
	defer s.callMu.Unlock()
	failure, err := s.deleteFailureFor(req)
	if err != nil {
		return nil, nil, err
	}
	if failure != nil && !failure.Async && !failure.Lost && !failure.Hang && failure.Slow == 0 {
		return nil, nil, failure.status().Err()
	}
	op, err := s.startDelete(req, failure)
	return op, failure, err
}

func (s *Server) startDelete(req *containerpb.DeleteNodePoolRequest, failure *Failure) (*operation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance()
	parent, name, err := s.deletable(req.GetName())
	if err != nil {
		return nil, err
	}
	np := s.clusters[parent][name]
	prior := np.Status
	np.Status = containerpb.NodePool_STOPPING
	var opFailure *Failure
	if failure != nil && failure.Async {
		opFailure = failure
	}
	op := s.startOp(parent, name, containerpb.Operation_DELETE_NODE_POOL, opFailure)
	op.prior = prior
	s.startWork(op, np)
	return op, nil
}

// deletable checks that GKE would accept deleting the node pool now.
func (s *Server) deletable(name string) (parent, pool string, err error) {
	parent, pool, err = s.lookup(name)
	if err != nil {
		return "", "", err
	}
	if op := s.runningOp(parent, pool); op != nil {
		return "", "", answer(TextIncompatibleOperation, op.pb.GetName())
	}
	if err := s.busy(parent); err != nil {
		return "", "", err
	}
	return parent, pool, nil
}

// deleteFailureFor asks the delete hook about a delete GKE would accept.
func (s *Server) deleteFailureFor(req *containerpb.DeleteNodePoolRequest) (*Failure, error) {
	s.mu.Lock()
	s.advance()
	inject := s.deleteInject
	_, _, refused := s.deletable(req.GetName())
	s.mu.Unlock()
	if inject == nil || refused != nil {
		return nil, nil
	}
	return hookFailure(inject(proto.Clone(req).(*containerpb.DeleteNodePoolRequest)))
}

// GetNodePool returns a node pool.
func (s *Server) GetNodePool(_ context.Context, req *containerpb.GetNodePoolRequest) (*containerpb.NodePool, error) {
	defer s.begin(req)()
	parent, name, err := s.lookup(req.GetName())
	if err != nil {
		return nil, err
	}
	return proto.Clone(s.clusters[parent][name]).(*containerpb.NodePool), nil
}

// ListNodePools returns a cluster's node pools.
func (s *Server) ListNodePools(_ context.Context, req *containerpb.ListNodePoolsRequest) (*containerpb.ListNodePoolsResponse, error) {
	defer s.begin(req)()
	if _, ok := s.clusters[req.GetParent()]; !ok {
		return nil, answer(TextNotFound, req.GetParent())
	}
	return &containerpb.ListNodePoolsResponse{NodePools: s.list(req.GetParent())}, nil
}

// GetOperation returns an operation; each call counts as one poll.
func (s *Server) GetOperation(_ context.Context, req *containerpb.GetOperationRequest) (*containerpb.Operation, error) {
	s.record(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	name := req.GetName()
	i := strings.LastIndex(name, "/operations/")
	if i < 0 {
		return nil, status.Errorf(codes.InvalidArgument, "Invalid operation name %q: want projects/P/locations/L/operations/OP.", name)
	}
	op, ok := s.ops[name[i+len("/operations/"):]]
	if !ok || !strings.HasPrefix(op.parent, name[:i]+"/clusters/") {
		return nil, answer(TextNotFound, name)
	}
	op.polls++
	s.advance()
	return proto.Clone(op.pb).(*containerpb.Operation), nil
}

// lookup splits projects/P/locations/L/clusters/C/nodePools/N and checks both exist.
func (s *Server) lookup(name string) (parent, pool string, err error) {
	parent, pool, ok := strings.Cut(name, "/nodePools/")
	if !ok || pool == "" {
		return "", "", answer(TextInvalidNodePool, name, "want projects/P/locations/L/clusters/C/nodePools/N")
	}
	pools, ok := s.clusters[parent]
	if !ok {
		return "", "", answer(TextNotFound, parent)
	}
	if _, ok := pools[pool]; !ok {
		return "", "", answer(TextNotFound, name)
	}
	return parent, pool, nil
}

func (s *Server) list(parent string) []*containerpb.NodePool {
	var out []*containerpb.NodePool
	for _, np := range s.clusters[parent] {
		out = append(out, proto.Clone(np).(*containerpb.NodePool))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GetName() < out[j].GetName() })
	return out
}

func (s *Server) runningOp(parent, pool string) *operation {
	for _, op := range s.ops {
		if !op.finished && op.parent == parent && op.pool == pool {
			return op
		}
	}
	return nil
}

func (s *Server) startOp(parent, pool string, typ containerpb.Operation_Type, failure *Failure) *operation {
	s.nextOp++
	now := s.now()
	project, location := splitParent(parent)
	id := fmt.Sprintf("operation-%d-%08x", now.UnixMilli(), s.nextOp)
	op := &operation{
		pb: &containerpb.Operation{
			Name:          id,
			OperationType: typ,
			Status:        containerpb.Operation_RUNNING,
			SelfLink:      fmt.Sprintf("https://container.googleapis.com/v1/projects/%s/locations/%s/operations/%s", project, location, id),
			TargetLink:    "https://container.googleapis.com/v1/" + parent + "/nodePools/" + pool,
			Location:      location,
			StartTime:     now.UTC().Format(time.RFC3339Nano),
		},
		parent:  parent,
		pool:    pool,
		readyAt: now.Add(s.delay),
		failure: failure,
	}
	s.ops[id] = op
	return op
}

// advance finishes the operations that have run their polls, their time and
// their work, and ends the reconciling that is due.
func (s *Server) advance() {
	now := s.now()
	for _, op := range s.ops {
		polled := op.timed || s.runningPolls <= 0 || op.polls > s.runningPolls
		if !op.finished && !op.working && polled && !now.Before(op.readyAt) {
			s.finish(op)
		}
	}
	for name, until := range s.reconciling {
		if now.Before(until) {
			continue
		}
		delete(s.reconciling, name)
		parent, pool, _ := strings.Cut(name, "/nodePools/")
		if np := s.clusters[parent][pool]; np != nil && np.Status == containerpb.NodePool_RECONCILING {
			np.Status = containerpb.NodePool_RUNNING
		}
	}
}

// startWork runs the Work hook of a node-pool operation, if any.
func (s *Server) startWork(op *operation, np *containerpb.NodePool) {
	if s.work == nil || op.failure != nil {
		return
	}
	op.working = true
	typ, parent, pool := op.pb.GetOperationType(), op.parent, proto.Clone(np).(*containerpb.NodePool)
	go func() {
		err := s.work(context.Background(), typ, parent, pool)
		s.mu.Lock()
		defer s.mu.Unlock()
		op.working, op.workErr = false, err
	}()
}

func (s *Server) finish(op *operation) {
	if op.finished {
		return
	}
	op.finished = true
	op.pb.Status = containerpb.Operation_DONE
	op.pb.EndTime = s.now().UTC().Format(time.RFC3339Nano)
	if op.pool == "" {
		return // a cluster operation
	}
	pools := s.clusters[op.parent]
	np := pools[op.pool]
	if op.workErr != nil && op.failure == nil {
		f := Failure{Code: codes.Internal, Message: op.workErr.Error()}
		_ = errors.As(op.workErr, &f)
		op.failure = &f
	}
	switch op.pb.GetOperationType() {
	case containerpb.Operation_DELETE_NODE_POOL:
		if f := op.failure; f != nil {
			op.pb.Error = f.status().Proto()
			op.pb.StatusMessage = f.Message //nolint:staticcheck // GKE still fills it
			np.Status = op.prior
			return
		}
		delete(pools, op.pool)
	case containerpb.Operation_CREATE_NODE_POOL:
		if f := op.failure; f != nil && f.Partial {
			s.provisioned(op.parent, np)
			np.Status = containerpb.NodePool_RUNNING_WITH_ERROR
			np.StatusMessage = f.Message //nolint:staticcheck // GKE still fills it
			np.Conditions = []*containerpb.StatusCondition{{Code: f.Condition, Message: f.Message, CanonicalCode: rpccode.Code(f.Code)}}
			return
		}
		if f := op.failure; f != nil {
			cond := &containerpb.StatusCondition{Code: f.Condition, Message: f.Message, CanonicalCode: rpccode.Code(f.Code)} //nolint:staticcheck // GKE still sends the code
			op.pb.Error = f.status().Proto()
			op.pb.StatusMessage = f.Message                                 //nolint:staticcheck // GKE still fills it
			op.pb.NodepoolConditions = []*containerpb.StatusCondition{cond} //nolint:staticcheck // as above
			np.Status = containerpb.NodePool_ERROR
			np.StatusMessage = f.Message //nolint:staticcheck // as above
			np.Conditions = []*containerpb.StatusCondition{proto.Clone(cond).(*containerpb.StatusCondition)}
			return
		}
		s.provisioned(op.parent, np)
	}
}

// provisioned fills in what GKE reports for a pool that came up.
func (s *Server) provisioned(parent string, np *containerpb.NodePool) {
	np.Status = containerpb.NodePool_RUNNING
	np.Version = s.clusterConfigs[parent].Version
	if np.Config == nil {
		np.Config = &containerpb.NodeConfig{}
	}
	if np.Config.DiskSizeGb == 0 {
		np.Config.DiskSizeGb = DefaultDiskSizeGb
	}
	if np.Config.DiskType == "" {
		np.Config.DiskType = DefaultDiskType
	}
	if np.Config.ImageType == "" {
		np.Config.ImageType = DefaultImageType
	}
	project, _ := splitParent(parent)
	if len(np.Locations) == 0 {
		np.Locations = append([]string(nil), s.clusterConfigs[parent].Locations...)
	}
	cluster := parent[strings.LastIndex(parent, "/")+1:]
	np.InstanceGroupUrls = nil
	for _, zone := range np.Locations {
		np.InstanceGroupUrls = append(np.InstanceGroupUrls, fmt.Sprintf(
			"https://www.googleapis.com/compute/v1/projects/%s/zones/%s/instanceGroupManagers/gke-%s-%s-grp", project, zone, cluster, np.Name))
	}
}

// checkNodePool refuses what GKE refuses in any node pool.
func checkNodePool(np *containerpb.NodePool) error {
	name := np.GetName()
	switch {
	case name == "", len(name) > 40, !validName(name):
		return answer(TextInvalidNodePool, name, "the name must be 1-40 lower-case letters, digits or '-', start with a letter and not end with '-'")
	case np.GetInitialNodeCount() < 1 && np.GetAutoscaling() == nil:
		return answer(TextInvalidNodePool, name, "initial_node_count must be positive")
	case np.GetConfig().GetMachineType() == "":
		return answer(TextInvalidNodePool, name, "config.machine_type is required")
	}
	return nil
}

func validName(name string) bool {
	for i, r := range name {
		switch {
		case r >= 'a' && r <= 'z':
		case (r >= '0' && r <= '9') || r == '-':
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return !strings.HasSuffix(name, "-")
}

// locationOf is L of projects/P/locations/L/clusters/C.
func locationOf(parent string) string {
	_, location := splitParent(parent)
	return location
}

// splitParent returns P and L of projects/P/locations/L/clusters/C.
func splitParent(parent string) (project, location string) {
	parts := strings.Split(parent, "/")
	if len(parts) >= 4 {
		return parts[1], parts[3]
	}
	return "", ""
}
