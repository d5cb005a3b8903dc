package gke

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

func TestClassify(t *testing.T) {
	withReason := func(c codes.Code, msg, reason string) error {
		st, err := status.New(c, msg).WithDetails(&errdetails.ErrorInfo{Reason: reason, Domain: "compute.googleapis.com"})
		if err != nil {
			t.Fatal(err)
		}
		return st.Err()
	}
	tests := []struct {
		name string
		err  error
		want Kind
	}{
		{"GCE stockout text", status.Error(codes.ResourceExhausted, "The zone 'projects/p/zones/us-central1-a' does not have enough resources available to fulfill the request."), Stockout},
		{"stockout code in the text", status.Error(codes.Unknown, "ZONE_RESOURCE_POOL_EXHAUSTED"), Stockout},
		{"stockout with FailedPrecondition", status.Error(codes.FailedPrecondition, "Google Compute Engine: ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS"), Stockout},
		{"stockout reason in ErrorInfo", withReason(codes.ResourceExhausted, "Resource exhausted.", "ZONE_RESOURCE_POOL_EXHAUSTED"), Stockout},
		{"regional quota (GKE answers 403)", status.Error(codes.PermissionDenied, `Insufficient regional quota to satisfy request: resource "CPUS": request requires '120.0' and is short '96.0'.`), QuotaExceeded},
		{"GCE quota", status.Error(codes.ResourceExhausted, "Quota 'C2_CPUS' exceeded.  Limit: 24.0 in region us-central1."), QuotaExceeded},
		{"quota reason in ErrorInfo", withReason(codes.ResourceExhausted, "Limit reached.", "QUOTA_EXCEEDED"), QuotaExceeded},
		{"API rate limit is transient", status.Error(codes.ResourceExhausted, "Quota exceeded for quota metric 'Requests' and limit 'Requests per minute' of service 'container.googleapis.com'."), Transient},
		{"compact placement refused", status.Error(codes.InvalidArgument, "Compact placement is not supported for machine type e2-standard-4."), InvalidConfig},
		{"invalid sysctl", status.Error(codes.InvalidArgument, `Invalid sysctl "net.ipv4.tcp_mem".`), InvalidConfig},
		{"precondition", status.Error(codes.FailedPrecondition, "Auto-upgrade cannot be disabled in a release channel."), InvalidConfig},
		{"busy node pool", status.Error(codes.FailedPrecondition, "Cluster is running incompatible operation operation-123."), Busy},
		{"unavailable", status.Error(codes.Unavailable, "The service is currently unavailable."), Transient},
		{"deadline", status.Error(codes.DeadlineExceeded, "deadline"), Transient},
		{"internal", status.Error(codes.Internal, "Internal error."), Transient},
		{"aborted", status.Error(codes.Aborted, "aborted"), Transient},
		{"context deadline", fmt.Errorf("calling: %w", context.DeadlineExceeded), Transient},
		{"permission", status.Error(codes.PermissionDenied, "Required 'container.clusters.update' permission."), PermissionDenied},
		{"unauthenticated", status.Error(codes.Unauthenticated, "no credentials"), PermissionDenied},
		{"not found", status.Error(codes.NotFound, "Not found: projects/p/locations/l/clusters/c/nodePools/np."), NotFound},
		{"already exists", status.Error(codes.AlreadyExists, "Already exists: np."), AlreadyExists},
		{"not a status", errors.New("boom"), Unknown},
		{"unknown code", status.Error(codes.DataLoss, "lost"), Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Classify(tt.err)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Classify(%v) = %v, want *Error", tt.err, err)
			}
			if e.Kind != tt.want {
				t.Errorf("kind = %v, want %v", e.Kind, tt.want)
			}
			if st, ok := status.FromError(tt.err); ok && e.Message != st.Message() {
				t.Errorf("message = %q, want GKE's %q", e.Message, st.Message())
			}
			if !errors.Is(err, tt.err) {
				t.Error("the classified error does not wrap the original")
			}
		})
	}
	if Classify(nil) != nil {
		t.Error("Classify(nil) != nil")
	}
}

func TestKinds(t *testing.T) {
	tests := []struct {
		kind      Kind
		reason    string
		retryable bool
	}{
		{Stockout, benchv1.ReasonStockout, true},
		{QuotaExceeded, benchv1.ReasonQuotaExceeded, false},
		{InvalidConfig, benchv1.ReasonInvalidConfig, false},
		{Transient, benchv1.ReasonProviderError, true},
		{PermissionDenied, benchv1.ReasonProviderError, false},
		{NotFound, benchv1.ReasonProviderError, false},
		{AlreadyExists, benchv1.ReasonProviderError, false},
		{Unknown, benchv1.ReasonProviderError, false},
	}
	for _, tt := range tests {
		if got := tt.kind.Reason(); got != tt.reason {
			t.Errorf("%v.Reason() = %q, want %q", tt.kind, got, tt.reason)
		}
		if got := tt.kind.Retryable(); got != tt.retryable {
			t.Errorf("%v.Retryable() = %v, want %v", tt.kind, got, tt.retryable)
		}
	}
	err := fmt.Errorf("getting pool: %w", &Error{Kind: NotFound, Message: "Not found: x."})
	if !errors.Is(err, ErrNotFound) || errors.Is(err, ErrAlreadyExists) {
		t.Error("errors.Is against the sentinels")
	}
	if got := (&Error{Kind: Stockout, Message: "no C3 in us-central1-a"}).Error(); got != "Stockout: no C3 in us-central1-a" {
		t.Errorf("Error() = %q", got)
	}
}

func TestOperationError(t *testing.T) {
	msg := "Instance 'gke-x' creation failed: The zone 'projects/p/zones/z' does not have enough resources available to fulfill the request."
	tests := []struct {
		name     string
		op       *containerpb.Operation
		wantKind Kind
		wantMsg  string
	}{
		{"done, no error", &containerpb.Operation{Status: containerpb.Operation_DONE}, -1, ""},
		{"error status", &containerpb.Operation{Error: status.New(codes.ResourceExhausted, msg).Proto()}, Stockout, msg},
		{"OK error status is no error", &containerpb.Operation{Error: status.New(codes.OK, "").Proto()}, -1, ""},
		{"only the deprecated status message", &containerpb.Operation{StatusMessage: "Quota 'CPUS' exceeded.  Limit: 8.0 in region r."}, QuotaExceeded, "Quota 'CPUS' exceeded.  Limit: 8.0 in region r."}, //nolint:staticcheck // GKE still sends it
		{
			"condition code decides a vague message",
			&containerpb.Operation{
				Error:              status.New(codes.Unknown, "Node pool creation failed.").Proto(),
				NodepoolConditions: []*containerpb.StatusCondition{{Code: containerpb.StatusCondition_GCE_QUOTA_EXCEEDED}}, //nolint:staticcheck // as above
			},
			QuotaExceeded, "Node pool creation failed.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := operationError(tt.op)
			if tt.wantKind < 0 {
				if err != nil {
					t.Fatalf("operationError = %v, want nil", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Kind != tt.wantKind || e.Message != tt.wantMsg {
				t.Fatalf("operationError = %#v, want kind %v message %q", err, tt.wantKind, tt.wantMsg)
			}
		})
	}
}

// A pool's name never changes what an error is: "stockout" is a fine name.
func TestNotFoundOfAPoolNamedLikeAnError(t *testing.T) {
	err := Classify(status.Error(codes.NotFound, "Not found: projects/p/locations/l/clusters/c/nodePools/stockout."))
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("classified as %v, want not found", KindOf(err))
	}
}

// A pool RUNNING_WITH_ERROR carries its failure (a partial stockout is a
// stockout); RECONCILING is running.
func TestPoolStates(t *testing.T) {
	partial := &containerpb.NodePool{Name: "np", Status: containerpb.NodePool_RUNNING_WITH_ERROR, Conditions: []*containerpb.StatusCondition{{
		Message: "Instance 'gke-np-1' creation failed: The zone 'projects/p/zones/us-central1-a' does not have enough resources available to fulfill the request.",
	}}}
	if err := PoolError(partial); KindOf(err) != Stockout {
		t.Errorf("PoolError(RUNNING_WITH_ERROR) = %v, want a Stockout", err)
	}
	reconciling := Effective(&containerpb.NodePool{Status: containerpb.NodePool_RECONCILING}, ClusterInfo{})
	if !reconciling.Running() || !reconciling.Reconciling() || PoolError(&containerpb.NodePool{Status: containerpb.NodePool_RECONCILING}) != nil {
		t.Errorf("RECONCILING: running %v, reconciling %v", reconciling.Running(), reconciling.Reconciling())
	}
}
