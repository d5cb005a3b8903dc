package fakegke

import (
	"fmt"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Failure is an error the fake returns for a CreateNodePool call. A
// synchronous failure is the RPC's gRPC status; an asynchronous one lets the
// call succeed and ends its operation DONE with the error, leaving the node
// pool in status ERROR, which is how GKE reports a stockout found while
// provisioning. The zero Failure (Succeed) means no failure.
type Failure struct {
	// Code and Message are the gRPC status GKE returns.
	Code    codes.Code
	Message string
	// Condition is the node pool condition code GKE attaches to an asynchronous
	// failure (GCE_STOCKOUT, GCE_QUOTA_EXCEEDED), if any.
	Condition containerpb.StatusCondition_Code
	// Async: the operation fails instead of the call.
	Async bool
	// Lost: the call is carried out (the node pool is created or deleting)
	// but its answer is lost on the way back: the caller gets Code and
	// Message, as after a dropped connection.
	Lost bool
	// Hang: the server carries the call out at once but holds its answer
	// until the caller gives up (its deadline): the caller sees
	// DeadlineExceeded, the node pool exists all the same. Code is not used.
	Hang bool
	// Slow: the call succeeds and its operation runs at least this long,
	// then succeeds. Code is not used.
	Slow time.Duration
	// Partial (with Async): the operation ends DONE without an error and the
	// node pool RUNNING_WITH_ERROR with the failure in its conditions.
	Partial bool
}

// Succeed is the Failure that is no failure, for failure queues.
var Succeed = Failure{}

// none tells the Failure that is no failure.
func (f Failure) none() bool { return f.Code == codes.OK && !f.Hang && f.Slow == 0 }

func (f Failure) Error() string {
	switch {
	case f.Hang:
		return "the call hangs until the caller's deadline, then is carried out"
	case f.Slow > 0:
		return fmt.Sprintf("the operation takes %s", f.Slow)
	case f.Code == codes.OK:
		return "no failure"
	}
	return f.status().Err().Error()
}

// GRPCStatus lets a Failure returned from Inject pass for a status error.
func (f Failure) GRPCStatus() *status.Status { return f.status() }

func (f Failure) status() *status.Status { return status.New(f.Code, f.Message) }

// AsAsync is the same failure, reported by the operation instead of the call.
func (f Failure) AsAsync() Failure {
	f.Async = true
	return f
}

// LostAnswer is the same failure with the call carried out on the server: the
// caller gets the error, the node pool exists (or is deleting).
func (f Failure) LostAnswer() Failure {
	f.Lost = true
	return f
}

// Hang is a call the server carries out but answers only after the caller
// gave up (a node pool the caller never heard of).
func Hang() Failure { return Failure{Hang: true} }

// SlowOperation is a call whose operation runs for d before it succeeds.
func SlowOperation(d time.Duration) Failure { return Failure{Slow: d} }

// The failures below send GKE's own words, from Texts.

// failure is the Failure of a text.
func failure(id TextID, args ...any) Failure {
	st := Texts[id].Status(args...)
	return Failure{Code: st.Code(), Message: st.Message()}
}

// Stockout is Compute Engine running out of the machine type in zone, as the
// create call's error. Use AsAsync for the more common report through the
// operation, which StockoutDuringProvisioning gives with GKE's wording.
func Stockout(project, zone string) Failure {
	f := failure(TextZoneExhausted, project, zone)
	f.Condition = containerpb.StatusCondition_GCE_STOCKOUT
	return f
}

// StockoutDuringProvisioning is a stockout found while the pool's instances
// are created: the operation ends with it and the pool is left in ERROR.
func StockoutDuringProvisioning(project, zone, instance string) Failure {
	f := failure(TextInstanceStockout, instance, project, zone)
	f.Condition = containerpb.StatusCondition_GCE_STOCKOUT
	f.Async = true
	return f
}

// PartialStockout is a stockout that hits some of the pool's instances: the
// operation ends DONE without an error and GKE leaves the node pool
// RUNNING_WITH_ERROR, partly usable, with the stockout in its conditions.
func PartialStockout(project, zone, instance string) Failure {
	f := StockoutDuringProvisioning(project, zone, instance)
	f.Partial = true
	return f
}

// InsufficientQuota is GKE's check of the regional quota before creating
// anything (GKE answers it with HTTP 403, PermissionDenied).
func InsufficientQuota(project, resource string, requires, short, quota float64) Failure {
	return failure(TextInsufficientQuota, resource, requires, short, quota, quota-(requires-short), project)
}

// QuotaExceeded is Compute Engine's QUOTA_EXCEEDED for a metric in a region.
func QuotaExceeded(metric string, limit float64, region string) Failure {
	f := failure(TextQuotaExceeded, metric, limit, region)
	f.Condition = containerpb.StatusCondition_GCE_QUOTA_EXCEEDED
	return f
}

// CompactPlacementUnsupported is GKE refusing compact placement for a machine type.
func CompactPlacementUnsupported(machineType string) Failure {
	return failure(TextPlacementMachineType, machineType)
}

// InvalidSysctl is GKE refusing a linuxNodeConfig sysctl outside its allow-list.
func InvalidSysctl(name string) Failure { return failure(TextInvalidSysctl, name) }

// Unavailable is the API being briefly unavailable.
func Unavailable() Failure { return failure(TextUnavailable) }

// InternalError is an internal error, usually reported through the operation.
func InternalError() Failure { return failure(TextInternal) }
