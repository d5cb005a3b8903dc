package fakegke_test

import (
	"context"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/benchwright/benchwright/test/fakegke"
)

const parent = "projects/p/locations/europe-west4/clusters/c"

func client(t *testing.T, srv *fakegke.Server) containerpb.ClusterManagerClient {
	t.Helper()
	conn, err := grpc.NewClient(srv.Endpoint(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return containerpb.NewClusterManagerClient(conn)
}

func create(name string) *containerpb.CreateNodePoolRequest {
	return &containerpb.CreateNodePoolRequest{Parent: parent, NodePool: &containerpb.NodePool{
		Name: name, InitialNodeCount: 1, Config: &containerpb.NodeConfig{MachineType: "c3-highcpu-8"},
		Management: &containerpb.NodeManagement{AutoUpgrade: true, AutoRepair: true},
	}}
}

// TestTimedOperations: with no polls required, an operation ends once its
// delay has passed, at the next request of any kind.
func TestTimedOperations(t *testing.T) {
	ctx := context.Background()
	srv := fakegke.Start(t, fakegke.WithCluster(parent), fakegke.WithRunningPolls(0), fakegke.WithDelay(20*time.Millisecond))
	c := client(t, srv)
	if _, err := c.CreateNodePool(ctx, create("np")); err != nil {
		t.Fatal(err)
	}
	np, err := c.GetNodePool(ctx, &containerpb.GetNodePoolRequest{Name: parent + "/nodePools/np"})
	if err != nil || np.GetStatus() != containerpb.NodePool_PROVISIONING {
		t.Fatalf("before the delay: %v, %v", np.GetStatus(), err)
	}
	time.Sleep(30 * time.Millisecond)
	resp, err := c.ListNodePools(ctx, &containerpb.ListNodePoolsRequest{Parent: parent})
	if err != nil || len(resp.GetNodePools()) != 1 || resp.GetNodePools()[0].GetStatus() != containerpb.NodePool_RUNNING {
		t.Fatalf("after the delay: %v, %v", resp, err)
	}
	// A regional cluster's pool without zones gets three.
	if got := resp.GetNodePools()[0].GetLocations(); len(got) != 3 || got[0] != "europe-west4-a" {
		t.Errorf("locations = %v", got)
	}
}

func TestRefusalsAndFinish(t *testing.T) {
	ctx := context.Background()
	srv := fakegke.Start(t, fakegke.WithCluster(parent))
	c := client(t, srv)
	tests := []struct {
		name string
		req  *containerpb.CreateNodePoolRequest
		want codes.Code
	}{
		{"unknown cluster", &containerpb.CreateNodePoolRequest{Parent: parent + "x", NodePool: create("a").NodePool}, codes.NotFound},
		{"name with upper case", create("Np"), codes.InvalidArgument},
		{"name too long", create("a23456789012345678901234567890123456789012"), codes.InvalidArgument},
		{"deprecated fields", &containerpb.CreateNodePoolRequest{ProjectId: "p", Parent: parent, NodePool: create("a").NodePool}, codes.InvalidArgument}, //nolint:staticcheck // the point of the case
	}
	for _, tt := range tests {
		if _, err := c.CreateNodePool(ctx, tt.req); status.Code(err) != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
	}
	srv.QueueFailures(fakegke.Succeed, fakegke.Unavailable())
	if _, err := c.CreateNodePool(ctx, create("a")); err != nil {
		t.Fatalf("queued Succeed: %v", err)
	}
	if _, err := c.CreateNodePool(ctx, create("b")); status.Code(err) != codes.Unavailable {
		t.Fatalf("queued Unavailable: %v", err)
	}
	if _, err := c.CreateNodePool(ctx, create("a")); status.Code(err) != codes.AlreadyExists {
		t.Fatalf("duplicate: %v", err)
	}
	srv.FinishOperations()
	if pools := srv.NodePools(parent); len(pools) != 1 || pools[0].GetStatus() != containerpb.NodePool_RUNNING {
		t.Fatalf("after FinishOperations: %v", pools)
	}
	if n := len(srv.CreateRequests()); n != 7 {
		t.Errorf("%d create requests recorded, want 7", n)
	}
}

// TestLostAnswersHangsAndSlowOperations: the call is carried out though the
// caller got an error (lost answer, or a hang past its deadline), and a slow
// operation stays RUNNING for its time.
func TestLostAnswersHangsAndSlowOperations(t *testing.T) {
	ctx := context.Background()
	srv := fakegke.Start(t, fakegke.WithCluster(parent), fakegke.WithRunningPolls(0))
	c := client(t, srv)
	srv.QueueFailures(fakegke.Unavailable().LostAnswer(), fakegke.Hang(), fakegke.SlowOperation(time.Hour))
	if _, err := c.CreateNodePool(ctx, create("lost")); status.Code(err) != codes.Unavailable {
		t.Fatalf("lost answer: %v", err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := c.CreateNodePool(short, create("hung")); status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("hang: %v", err)
	}
	op, err := c.CreateNodePool(ctx, create("slow"))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return len(srv.NodePools(parent)) == 3 })
	for _, np := range srv.NodePools(parent) {
		want := containerpb.NodePool_RUNNING
		if np.GetName() == "slow" {
			want = containerpb.NodePool_PROVISIONING
		}
		if np.GetStatus() != want {
			t.Errorf("%s is %v, want %v", np.GetName(), np.GetStatus(), want)
		}
	}
	got, err := c.GetOperation(ctx, &containerpb.GetOperationRequest{Name: "projects/p/locations/europe-west4/operations/" + op.GetName()})
	if err != nil || got.GetStatus() != containerpb.Operation_RUNNING {
		t.Errorf("slow operation: %v, %v", got.GetStatus(), err)
	}
}

// TestDeleteFailures: a refused delete deletes nothing, a failed delete
// operation leaves the pool as it was, a lost answer deletes it all the same.
func TestDeleteFailures(t *testing.T) {
	ctx := context.Background()
	srv := fakegke.Start(t, fakegke.WithCluster(parent), fakegke.WithRunningPolls(0))
	c := client(t, srv)
	for _, name := range []string{"a", "b"} {
		if _, err := c.CreateNodePool(ctx, create(name)); err != nil {
			t.Fatal(err)
		}
	}
	srv.FinishOperations()
	plan := []fakegke.Failure{fakegke.InternalError(), fakegke.InternalError().AsAsync(), fakegke.InternalError().LostAnswer()}
	srv.SetDeleteInject(func(*containerpb.DeleteNodePoolRequest) error {
		if len(plan) == 0 {
			return nil
		}
		f := plan[0]
		plan = plan[1:]
		return f
	})
	del := func(name string) (*containerpb.Operation, error) {
		return c.DeleteNodePool(ctx, &containerpb.DeleteNodePoolRequest{Name: parent + "/nodePools/" + name})
	}
	if _, err := del("a"); status.Code(err) != codes.Internal || len(srv.NodePools(parent)) != 2 {
		t.Fatalf("refused delete: %v, %v", err, srv.NodePools(parent))
	}
	op, err := del("a")
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		got, err := c.GetOperation(ctx, &containerpb.GetOperationRequest{Name: "projects/p/locations/europe-west4/operations/" + op.GetName()})
		return err == nil && got.GetStatus() == containerpb.Operation_DONE && got.GetError().GetCode() == int32(codes.Internal)
	})
	if pools := srv.NodePools(parent); len(pools) != 2 || pools[0].GetStatus() != containerpb.NodePool_RUNNING {
		t.Fatalf("after a failed delete operation: %v", pools)
	}
	if _, err := del("b"); status.Code(err) != codes.Internal {
		t.Fatalf("lost answer: %v", err)
	}
	waitFor(t, func() bool { return len(srv.NodePools(parent)) == 1 })
}

func waitFor(t *testing.T, done func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !done(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}
