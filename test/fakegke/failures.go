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

// The messages below follow the text GKE and Compute Engine return for these
// failures, as far as it is known without a live project; classification keys
// on the same fragments (ZONE_RESOURCE_POOL_EXHAUSTED, "does not have enough
// resources available", "Insufficient regional quota", "Quota ... exceeded").

// Stockout is Compute Engine running out of the machine type in zone, as the
// create call's error. Use AsAsync for the more common report through the
// operation, which StockoutDuringProvisioning gives with GKE's wording.
func Stockout(project, zone string) Failure {
	return Failure{
		Code: codes.ResourceExhausted,
		Message: fmt.Sprintf("Google Compute Engine: ZONE_RESOURCE_POOL_EXHAUSTED: The zone 'projects/%s/zones/%s' "+
			"does not have enough resources available to fulfill the request. Try a different zone, or try again later.", project, zone),
		Condition: containerpb.StatusCondition_GCE_STOCKOUT,
	}
}

// StockoutDuringProvisioning is a stockout found while the pool's instances
// are created: the operation ends with it and the pool is left in ERROR.
func StockoutDuringProvisioning(project, zone, instance string) Failure {
	return Failure{
		Code: codes.ResourceExhausted,
		Message: fmt.Sprintf("Instance '%s' creation failed: The zone 'projects/%s/zones/%s' does not have enough "+
			"resources available to fulfill the request.  Try a different zone, or try again later.", instance, project, zone),
		Condition: containerpb.StatusCondition_GCE_STOCKOUT,
		Async:     true,
	}
}

// InsufficientQuota is GKE's check of the regional quota before creating
// anything (GKE answers it with HTTP 403, PermissionDenied).
func InsufficientQuota(project, resource string, requires, short, quota float64) Failure {
	return Failure{
		Code: codes.PermissionDenied,
		Message: fmt.Sprintf("Insufficient regional quota to satisfy request: resource %q: request requires '%.1f' and is short '%.1f'. "+
			"project has a quota of '%.1f' with '%.1f' available. View and manage quotas at "+
			"https://console.cloud.google.com/iam-admin/quotas?usage=USED&project=%s.",
			resource, requires, short, quota, quota-(requires-short), project),
	}
}

// QuotaExceeded is Compute Engine's QUOTA_EXCEEDED for a metric in a region.
func QuotaExceeded(metric string, limit float64, region string) Failure {
	return Failure{
		Code:      codes.ResourceExhausted,
		Message:   fmt.Sprintf("Quota '%s' exceeded.  Limit: %.1f in region %s.", metric, limit, region),
		Condition: containerpb.StatusCondition_GCE_QUOTA_EXCEEDED,
	}
}

// CompactPlacementUnsupported is GKE refusing compact placement for a machine type.
func CompactPlacementUnsupported(machineType string) Failure {
	return Failure{
		Code:    codes.InvalidArgument,
		Message: fmt.Sprintf("Compact placement is not supported for machine type %s.", machineType),
	}
}

// InvalidSysctl is GKE refusing a linuxNodeConfig sysctl outside its allow-list.
func InvalidSysctl(name string) Failure {
	return Failure{
		Code:    codes.InvalidArgument,
		Message: fmt.Sprintf("Invalid sysctl %q in node_pool.config.linux_node_config.sysctls: the parameter is not supported.", name),
	}
}

// Unavailable is the API being briefly unavailable.
func Unavailable() Failure {
	return Failure{Code: codes.Unavailable, Message: "The service is currently unavailable."}
}

// InternalError is an internal error, usually reported through the operation.
func InternalError() Failure {
	return Failure{Code: codes.Internal, Message: "Internal error encountered. Please try again."}
}
