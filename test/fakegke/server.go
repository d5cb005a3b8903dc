// Package fakegke is an in-process GKE ClusterManager gRPC server for tests.
// It keeps node pools per cluster, creates and deletes them through
// long-running operations that take a few polls (or some time), records every
// request, and injects the failures GKE reports: stockouts, quota, invalid
// configuration and transient errors, synchronous or through the operation.
//
//	srv := fakegke.Start(t, fakegke.WithCluster("projects/p/locations/us-central1-a/clusters/c"))
//	provider, err := gke.New(ctx, srv.ClientOptions()...)
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

	mu           sync.Mutex
	clusters     map[string]map[string]*containerpb.NodePool // parent -> name -> pool
	ops          map[string]*operation                       // operation id -> operation
	nextOp       int
	runningPolls int
	delay        time.Duration
	now          func() time.Time
	requests     []proto.Message
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
}

// Option configures a Server.
type Option func(*Server)

// WithCluster adds a cluster, projects/P/locations/L/clusters/C. Requests for
// any other cluster are NotFound.
func WithCluster(parent string) Option {
	return func(s *Server) { s.clusters[parent] = map[string]*containerpb.NodePool{} }
}

// WithRunningPolls sets how many GetOperation calls see an operation RUNNING
// before it is DONE (default 1). With 0 an operation is DONE at the first
// request after its delay, polled or not.
func WithRunningPolls(n int) Option { return func(s *Server) { s.runningPolls = n } }

// WithDelay sets how long an operation runs at least (default 0).
func WithDelay(d time.Duration) Option { return func(s *Server) { s.delay = d } }

// Start serves a fake on 127.0.0.1 until the test ends.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{
		clusters:     map[string]map[string]*containerpb.NodePool{},
		ops:          map[string]*operation{},
		runningPolls: 1,
		now:          time.Now,
	}
	for _, o := range opts {
		o(s)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("fakegke: listening: %v", err)
	}
	s.lis = lis
	s.grpc = grpc.NewServer()
	containerpb.RegisterClusterManagerServer(s.grpc, s)
	go func() { _ = s.grpc.Serve(lis) }()
	t.Cleanup(s.Stop)
	return s
}

// Stop stops serving; Start registers it as a test cleanup.
func (s *Server) Stop() { s.grpc.Stop() }

// Endpoint is the server's host:port.
func (s *Server) Endpoint() string { return s.lis.Addr().String() }

// ClientOptions point a GKE client at the fake, without credentials.
func (s *Server) ClientOptions() []option.ClientOption {
	return []option.ClientOption{
		option.WithEndpoint(s.Endpoint()),
		option.WithoutAuthentication(),
		option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials())),
	}
}

// AddCluster adds a cluster, projects/P/locations/L/clusters/C.
func (s *Server) AddCluster(parent string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.clusters[parent]; !ok {
		s.clusters[parent] = map[string]*containerpb.NodePool{}
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
	failure, err := s.failureFor(req)
	if err != nil {
		return nil, err
	}
	if failure != nil && !failure.Async && !failure.Lost && !failure.Hang && failure.Slow == 0 {
		return nil, failure.status().Err()
	}
	op, err := s.create(req, failure)
	return s.answer(ctx, op, failure, err)
}

func (s *Server) create(req *containerpb.CreateNodePoolRequest, failure *Failure) (*operation, error) {
	np := req.GetNodePool()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance()
	pools, ok := s.clusters[req.GetParent()]
	if !ok {
		return nil, status.Errorf(codes.NotFound, "Not found: %s.", req.GetParent())
	}
	if _, dup := pools[np.GetName()]; dup {
		return nil, status.Errorf(codes.AlreadyExists, "Already exists: %s/nodePools/%s.", req.GetParent(), np.GetName())
	}
	stored := proto.Clone(np).(*containerpb.NodePool)
	stored.Status = containerpb.NodePool_PROVISIONING
	stored.SelfLink = "https://container.googleapis.com/v1/" + req.GetParent() + "/nodePools/" + np.GetName()
	pools[np.GetName()] = stored
	var opFailure *Failure
	if failure != nil && failure.Async {
		opFailure = failure
	}
	return s.startOp(req.GetParent(), np.GetName(), containerpb.Operation_CREATE_NODE_POOL, opFailure), nil
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
	failure, err := s.deleteFailureFor(req)
	if err != nil {
		return nil, err
	}
	if failure != nil && !failure.Async && !failure.Lost && !failure.Hang && failure.Slow == 0 {
		return nil, failure.status().Err()
	}
	op, err := s.startDelete(req, failure)
	return s.answer(ctx, op, failure, err)
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
	return op, nil
}

// deletable checks that GKE would accept deleting the node pool now.
func (s *Server) deletable(name string) (parent, pool string, err error) {
	parent, pool, err = s.lookup(name)
	if err != nil {
		return "", "", err
	}
	if op := s.runningOp(parent, pool); op != nil {
		return "", "", status.Errorf(codes.FailedPrecondition, "Cluster is running incompatible operation %s.", op.pb.GetName())
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
		return nil, status.Errorf(codes.NotFound, "Not found: %s.", req.GetParent())
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
		return nil, status.Errorf(codes.NotFound, "Not found: %s.", name)
	}
	op.polls++
	s.advance()
	return proto.Clone(op.pb).(*containerpb.Operation), nil
}

// lookup splits projects/P/locations/L/clusters/C/nodePools/N and checks both exist.
func (s *Server) lookup(name string) (parent, pool string, err error) {
	parent, pool, ok := strings.Cut(name, "/nodePools/")
	if !ok || pool == "" {
		return "", "", status.Errorf(codes.InvalidArgument, "Invalid node pool name %q.", name)
	}
	pools, ok := s.clusters[parent]
	if !ok {
		return "", "", status.Errorf(codes.NotFound, "Not found: %s.", parent)
	}
	if _, ok := pools[pool]; !ok {
		return "", "", status.Errorf(codes.NotFound, "Not found: %s.", name)
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

// advance finishes the operations that have run their polls and their time.
func (s *Server) advance() {
	now := s.now()
	for _, op := range s.ops {
		if !op.finished && (s.runningPolls <= 0 || op.polls > s.runningPolls) && !now.Before(op.readyAt) {
			s.finish(op)
		}
	}
}

func (s *Server) finish(op *operation) {
	if op.finished {
		return
	}
	op.finished = true
	op.pb.Status = containerpb.Operation_DONE
	op.pb.EndTime = s.now().UTC().Format(time.RFC3339Nano)
	pools := s.clusters[op.parent]
	np := pools[op.pool]
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
	np.Version = Version
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
	project, location := splitParent(parent)
	if len(np.Locations) == 0 {
		if strings.Count(location, "-") == 2 {
			np.Locations = []string{location}
		} else {
			np.Locations = []string{location + "-a", location + "-b", location + "-c"}
		}
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
		return status.Errorf(codes.InvalidArgument, "Invalid node pool name %q: must be 1-40 lower-case letters, digits or '-', start with a letter and not end with '-'.", name)
	case np.GetInitialNodeCount() < 1 && np.GetAutoscaling() == nil:
		return status.Errorf(codes.InvalidArgument, "Invalid node pool %q: initial_node_count must be positive.", name)
	case np.GetConfig().GetMachineType() == "":
		return status.Errorf(codes.InvalidArgument, "Invalid node pool %q: config.machine_type is required.", name)
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

// splitParent returns P and L of projects/P/locations/L/clusters/C.
func splitParent(parent string) (project, location string) {
	parts := strings.Split(parent, "/")
	if len(parts) >= 4 {
		return parts[1], parts[3]
	}
	return "", ""
}
