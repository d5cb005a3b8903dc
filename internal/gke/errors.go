package gke

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// Kind is what went wrong, as far as the caller can act on it.
type Kind int

// Kinds of GKE failures.
const (
	// Unknown is a failure none of the other kinds describes.
	Unknown Kind = iota
	// Stockout: the zone has no capacity for the machine type right now
	// (GCE ZONE_RESOURCE_POOL_EXHAUSTED, GKE GCE_STOCKOUT).
	Stockout
	// QuotaExceeded: a project or regional quota (CPUs, IPs, disks) is too small.
	QuotaExceeded
	// InvalidConfig: GKE refuses the request as asked (machine type not
	// supported for compact placement, sysctl not allowed, cluster not found...).
	InvalidConfig
	// Transient: the API was unavailable, timed out, or was busy with another
	// operation on the cluster.
	Transient
	// PermissionDenied: the manager's service account may not do this.
	PermissionDenied
	// NotFound: the node pool does not exist (see ErrNotFound).
	NotFound
	// AlreadyExists: a node pool of that name exists (see ErrAlreadyExists).
	AlreadyExists
	// NotAllowed: the spec names a cluster the manager may not use (see
	// ClusterFor); no request was sent.
	NotAllowed
	// Busy: the cluster runs another operation (a control-plane upgrade or
	// repair, another node-pool operation) or its concurrent operations quota
	// is in use. Terraform's provider retries these on node-pool writes
	// (hashicorp/terraform-provider-google#1660, GoogleCloudPlatform/magic-modules#8828).
	Busy
)

var kindNames = [...]string{"Unknown", "Stockout", "QuotaExceeded", "InvalidConfig", "Transient", "PermissionDenied", "NotFound", "AlreadyExists", "NotAllowed", "Busy"}

func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// Reason is the BenchmarkPool condition reason for the kind.
func (k Kind) Reason() string {
	switch k {
	case Stockout:
		return benchv1.ReasonStockout
	case QuotaExceeded:
		return benchv1.ReasonQuotaExceeded
	case InvalidConfig:
		return benchv1.ReasonInvalidConfig
	case NotAllowed:
		return benchv1.ReasonClusterNotAllowed
	case Busy:
		return benchv1.ReasonClusterBusy
	default:
		return benchv1.ReasonProviderError
	}
}

// Retryable reports whether trying the same request again, after a backoff, can
// succeed. Stockouts end when capacity frees up in the zone, and transient
// errors by themselves, a busy cluster when its operation ends. A quota does not grow by itself: it needs a quota
// increase or other pools deleted, so it is not retryable here; a controller
// may still look again on a long clock.
func (k Kind) Retryable() bool { return k == Stockout || k == Transient || k == Busy }

// Error is a classified GKE failure. Message is GKE's own text (or, for a
// request refused before it was sent, what to fix); Err is the underlying error.
type Error struct {
	Kind    Kind
	Message string
	Err     error
}

func (e *Error) Error() string { return e.Kind.String() + ": " + e.Message }

// Unwrap returns the underlying error (a gRPC status error for GKE's answers).
func (e *Error) Unwrap() error { return e.Err }

// Is matches the sentinels: errors.Is(err, ErrNotFound) is true for any
// *Error of kind NotFound.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Err == nil && t.Kind == e.Kind
}

// Retryable reports whether retrying with backoff can help; see Kind.Retryable.
func (e *Error) Retryable() bool { return e.Kind.Retryable() }

// Sentinels for errors.Is.
var (
	ErrNotFound      = &Error{Kind: NotFound}
	ErrAlreadyExists = &Error{Kind: AlreadyExists}
)

// KindOf is the kind of err: its *Error's kind, or Unknown.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Unknown
}

// Retryable reports whether err is an *Error worth retrying.
func Retryable(err error) bool { return KindOf(err).Retryable() }

func invalidf(format string, args ...any) *Error {
	return &Error{Kind: InvalidConfig, Message: fmt.Sprintf(format, args...)}
}

// Classify turns an error from the ClusterManager API into an *Error, keeping
// GKE's message. nil stays nil; an *Error is returned as it is.
func Classify(err error) error {
	if err == nil {
		return nil
	}
	return classifyErr(err)
}

func classifyErr(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return &Error{Kind: Transient, Message: err.Error(), Err: err}
	}
	st, ok := status.FromError(err)
	if !ok {
		return &Error{Kind: Unknown, Message: err.Error(), Err: err}
	}
	return &Error{Kind: classify(st.Code(), st.Message(), reasons(st)...), Message: st.Message(), Err: err}
}

// operationError is the failure a finished operation reports, or nil. GKE puts
// it in Operation.error; older responses only have the deprecated
// status_message and node pool conditions, which are read as a fallback.
func operationError(op *containerpb.Operation) error {
	// The condition codes (GCE_STOCKOUT, GCE_QUOTA_EXCEEDED) are deprecated
	// for canonical_code, which cannot tell a stockout from a quota.
	var hints []string
	for _, c := range op.GetNodepoolConditions() { //nolint:staticcheck // see above
		hints = append(hints, c.GetCode().String()) //nolint:staticcheck // see above
	}
	for _, c := range op.GetClusterConditions() { //nolint:staticcheck // see above
		hints = append(hints, c.GetCode().String()) //nolint:staticcheck // see above
	}
	if s := op.GetError(); s != nil && codes.Code(s.GetCode()) != codes.OK {
		st := status.FromProto(s)
		hints = append(hints, reasons(st)...)
		return &Error{Kind: classify(st.Code(), st.Message(), hints...), Message: st.Message(), Err: st.Err()}
	}
	if msg := op.GetStatusMessage(); msg != "" { //nolint:staticcheck // as above
		return &Error{Kind: classify(codes.Unknown, msg, hints...), Message: msg, Err: errors.New(msg)}
	}
	return nil
}

// reasons are the ErrorInfo reasons attached to a status, if any.
func reasons(st *status.Status) []string {
	var out []string
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			out = append(out, info.GetReason())
		}
	}
	return out
}

// Message fragments GKE and Compute Engine use. The text decides over the code:
// GKE reports a GCE stockout with several codes, and API rate limits with the
// same ResourceExhausted code as a stockout.
var (
	stockoutText = []string{
		"zone_resource_pool_exhausted", "stockout", // GCE_STOCKOUT too
		"does not have enough resources available", "resource pool exhausted",
	}
	rateLimitText = []string{"requests per minute", "rate limit", "quota metric 'requests'", "ratelimitexceeded"}
	// A quota is also any text with "quota" and "exceeded" (QUOTA_EXCEEDED,
	// GCE_QUOTA_EXCEEDED, "Quota 'C2_CPUS' exceeded").
	quotaText = []string{"insufficient regional quota", "insufficient quota"}
	// A busy cluster, in GKE's words (test/fakegke's Texts): "Operation
	// operation-… is currently creating a node pool for cluster C. Please wait
	// and try again once it is done." (terraform-provider-google#975), "Too
	// many operations: cluster "C" hits the concurrent operations quota 5"
	// (#15579), "Cluster is currently being created, deleted, updated or
	// repaired and cannot be updated.", "Cluster is running incompatible
	// operation …".
	clusterBusyText = []string{
		"please wait and try again once it is done", "concurrent operations quota", "too many operations",
		"is currently being created, deleted, updated or repaired", "incompatible operation",
	}
	transientText = []string{"please try again", "try again later"}
	// The manager may not act as the node service account (GKE's 400, https://cloud.google.com/kubernetes-engine/docs/troubleshooting/service-accounts).
	actAsText = []string{"does not have access to service account"}
)

func classify(code codes.Code, msg string, hints ...string) Kind {
	// NotFound and AlreadyExists are about the named object, whose name may
	// hold any of the words below (a pool named "stockout").
	switch code {
	case codes.NotFound:
		return NotFound
	case codes.AlreadyExists:
		return AlreadyExists
	}
	text := strings.ToLower(msg + " " + strings.Join(hints, " "))
	switch {
	case containsAny(text, stockoutText):
		return Stockout
	case containsAny(text, clusterBusyText):
		return Busy
	case containsAny(text, rateLimitText):
		return Transient
	case containsAny(text, quotaText), strings.Contains(text, "quota") && strings.Contains(text, "exceeded"):
		return QuotaExceeded
	case containsAny(text, actAsText):
		return PermissionDenied
	case containsAny(text, transientText):
		return Transient
	}
	switch code {
	case codes.InvalidArgument, codes.FailedPrecondition, codes.OutOfRange:
		return InvalidConfig
	case codes.Unavailable, codes.DeadlineExceeded, codes.Internal, codes.Aborted, codes.ResourceExhausted, codes.Canceled:
		return Transient
	case codes.PermissionDenied, codes.Unauthenticated:
		return PermissionDenied
	}
	return Unknown
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// PoolError is the failure a node pool in ERROR carries (GKE leaves a pool
// there when its creation failed), or in RUNNING_WITH_ERROR ("created and
// partially usable", a partial stockout), classified like an operation's
// error; nil for a pool in any other state.
func PoolError(np *containerpb.NodePool) error {
	if s := np.GetStatus(); s != containerpb.NodePool_ERROR && s != containerpb.NodePool_RUNNING_WITH_ERROR {
		return nil
	}
	var hints, msgs []string
	for _, c := range np.GetConditions() {
		hints = append(hints, c.GetCode().String()) //nolint:staticcheck // see operationError
		msgs = append(msgs, c.GetMessage())
	}
	if len(msgs) == 0 && np.GetStatusMessage() != "" { //nolint:staticcheck // deprecated, still filled by GKE
		msgs = append(msgs, np.GetStatusMessage()) //nolint:staticcheck // as above
	}
	msg := strings.Join(msgs, "; ")
	if msg == "" {
		msg = "node pool " + np.GetName() + " is in " + np.GetStatus().String()
	}
	return &Error{Kind: classify(codes.Unknown, msg, hints...), Message: msg, Err: errors.New(msg)}
}
