package fakegke

import (
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TextID names one of GKE's answers.
type TextID string

// Text is an answer as GKE words it: its gRPC code, its message (a fmt
// format) and where the words were seen.
type Text struct {
	Code   codes.Code
	Format string
	// Source is the public report or page the words come from. Where no
	// posted answer was found, it says so and names the page whose rule the
	// text states.
	Source string
}

// Status is the answer with its arguments filled in.
func (t Text) Status(args ...any) *status.Status {
	return status.New(t.Code, fmt.Sprintf(t.Format, args...))
}

// The fake's answers. Every message the fake sends is one of Texts, so the
// provider's error-classification tests read the same table.
const (
	TextAutoUpgradeOnChannel  TextID = "AutoUpgradeOnChannel"
	TextAutoRepairOnChannel   TextID = "AutoRepairOnChannel"
	TextOperationRunning      TextID = "OperationRunning"
	TextClusterNotReady       TextID = "ClusterNotReady"
	TextConcurrentOperations  TextID = "ConcurrentOperations"
	TextIncompatibleOperation TextID = "IncompatibleOperation"
	TextZoneExhausted         TextID = "ZoneExhausted"
	TextInstanceStockout      TextID = "InstanceStockout"
	TextInsufficientQuota     TextID = "InsufficientQuota"
	TextQuotaExceeded         TextID = "QuotaExceeded"
	TextPlacementMachineType  TextID = "PlacementMachineType"
	TextPlacementZones        TextID = "PlacementZones"
	TextTier1                 TextID = "Tier1"
	TextThreadsPerCore        TextID = "ThreadsPerCore"
	TextInvalidSysctl         TextID = "InvalidSysctl"
	TextLocationNotInRegion   TextID = "LocationNotInRegion"
	TextServiceAccountAccess  TextID = "ServiceAccountAccess"
	TextUnavailable           TextID = "Unavailable"
	TextInternal              TextID = "Internal"
	TextNotFound              TextID = "NotFound"
	TextAlreadyExists         TextID = "AlreadyExists"
	TextInvalidNodePool       TextID = "InvalidNodePool"
)

// Texts are GKE's answers by name.
var Texts = map[TextID]Text{
	TextAutoUpgradeOnChannel: {codes.InvalidArgument, "Auto_upgrade cannot be false when release_channel %s is set.",
		"https://github.com/nkoson/gke-tutorial/issues/8, terraform-google-modules/terraform-google-kubernetes-engine#682"},
	TextAutoRepairOnChannel: {codes.InvalidArgument, "Auto_repair cannot be false when release_channel %s is set.",
		"the auto_upgrade answer's form; rule: https://cloud.google.com/kubernetes-engine/docs/concepts/release-channels (auto-upgrade and auto-repair cannot be disabled on a channel)"},
	// %s: the operation and its work ("creating a node pool for cluster C",
	// "deleting a node pool for cluster C", "upgrading cluster C").
	TextOperationRunning: {codes.FailedPrecondition, "Operation %s is currently %s. Please wait and try again once it is done.",
		"hashicorp/terraform-provider-google#975, #10366, #3650; prometheus/test-infra#84 (gRPC FailedPrecondition)"},
	TextClusterNotReady: {codes.FailedPrecondition, "Cluster is currently being created, deleted, updated or repaired and cannot be updated.",
		"quoted in benchwright issue 41; no public post of it was found"},
	TextConcurrentOperations: {codes.ResourceExhausted, "Too many operations: cluster %q hits the concurrent operations quota %d, please try again later.",
		"hashicorp/terraform-provider-google#15579, #15205 (HTTP 429); retried since GoogleCloudPlatform/magic-modules#8828"},
	TextIncompatibleOperation: {codes.FailedPrecondition, "Cluster is running incompatible operation %s.",
		"no posted answer found: a busy node pool, which terraform-provider-google retries since hashicorp/terraform-provider-google#1660"},
	TextZoneExhausted: {codes.ResourceExhausted, "Google Compute Engine: ZONE_RESOURCE_POOL_EXHAUSTED: The zone 'projects/%s/zones/%s' does not have enough resources available to fulfill the request. Try a different zone, or try again later.",
		"Compute Engine's ZONE_RESOURCE_POOL_EXHAUSTED, https://cloud.google.com/compute/docs/troubleshooting/troubleshooting-resource-availability"},
	TextInstanceStockout: {codes.ResourceExhausted, "Instance '%s' creation failed: The zone 'projects/%s/zones/%s' does not have enough resources available to fulfill the request.  Try a different zone, or try again later.",
		"GKE's GCE_STOCKOUT node pool condition, https://cloud.google.com/kubernetes-engine/docs/troubleshooting/node-pools"},
	TextInsufficientQuota: {codes.PermissionDenied, "Insufficient regional quota to satisfy request: resource %q: request requires '%.1f' and is short '%.1f'. project has a quota of '%.1f' with '%.1f' available. View and manage quotas at https://console.cloud.google.com/iam-admin/quotas?usage=USED&project=%s.",
		"GKE's regional quota check (HTTP 403), https://cloud.google.com/kubernetes-engine/quotas"},
	TextQuotaExceeded: {codes.ResourceExhausted, "Quota '%s' exceeded.  Limit: %.1f in region %s.",
		"Compute Engine's QUOTA_EXCEEDED, https://cloud.google.com/compute/resource-usage"},
	TextPlacementMachineType: {codes.InvalidArgument, "Placement policy is not applicable to machine type %s.",
		"dstackai/dstack#2591 (Compute Engine's answer); rule: https://cloud.google.com/kubernetes-engine/docs/how-to/compact-placement#limitations"},
	TextPlacementZones: {codes.InvalidArgument, "Compact placement is only available for node pools operating in a single zone; node pool %q has locations %v.",
		"no posted answer found; rule: https://cloud.google.com/kubernetes-engine/docs/how-to/compact-placement#limitations-standard, as GoogleCloudPlatform/cluster-toolkit#3439 checks it"},
	TextTier1: {codes.InvalidArgument, "Tier_1 networking performance is not supported for machine type %s: it needs gVNIC and an N2, N2D, C2, C2D or C3 machine type with at least 30 vCPUs.",
		"no posted answer found; rule: https://cloud.google.com/compute/docs/networking/configure-vm-with-high-bandwidth-configuration"},
	TextThreadsPerCore: {codes.InvalidArgument, "threads_per_core is not supported for machine type %s.",
		"no posted answer found; rule: https://cloud.google.com/compute/docs/instances/set-threads-per-core"},
	TextInvalidSysctl: {codes.InvalidArgument, "Invalid sysctl %q in node_pool.config.linux_node_config.sysctls: the parameter is not supported.",
		"no posted answer found; rule: the google.container.v1 LinuxNodeConfig.sysctls list, https://cloud.google.com/kubernetes-engine/docs/how-to/node-system-config"},
	TextLocationNotInRegion: {codes.InvalidArgument, "Node pool location %q is not in the cluster's region %s.",
		"no posted answer found; rule: https://cloud.google.com/kubernetes-engine/docs/concepts/regional-clusters (node locations are zones of the cluster's region)"},
	TextServiceAccountAccess: {codes.InvalidArgument, "The user does not have access to service account %q. Ask a project owner to grant you the iam.serviceAccountUser role on the service account.",
		"https://cloud.google.com/kubernetes-engine/docs/troubleshooting/service-accounts"},
	TextUnavailable: {codes.Unavailable, "The service is currently unavailable.",
		"google.rpc UNAVAILABLE, https://cloud.google.com/apis/design/errors"},
	TextInternal: {codes.Internal, "Internal error encountered. Please try again.",
		"google.rpc INTERNAL, https://cloud.google.com/apis/design/errors"},
	TextNotFound: {codes.NotFound, "Not found: %s.",
		"hashicorp/terraform-provider-google#10366 (GKE's 404 names the resource)"},
	TextAlreadyExists: {codes.AlreadyExists, "Already exists: %s.",
		"GKE's 409 on a duplicate node pool name, https://cloud.google.com/apis/design/errors"},
	TextInvalidNodePool: {codes.InvalidArgument, "Invalid node pool %q: %s.",
		"GKE's 400 on a malformed node pool, https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/projects.locations.clusters.nodePools#NodePool"},
}

// answer is the text id's status as an error.
func answer(id TextID, args ...any) error { return Texts[id].Status(args...).Err() }
