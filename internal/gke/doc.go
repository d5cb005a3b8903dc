// Package gke creates, watches and deletes the GKE node pools of BenchmarkPools
// through the real client library, cloud.google.com/go/container/apiv1.
//
// NodePoolRequest is a pure constructor (spec -> containerpb.NodePool) that
// refuses what GKE would refuse; Provider makes the calls; Error classifies
// GKE's failures (stockout, quota, invalid configuration, transient) and keeps
// GKE's own message for the BenchmarkPool's condition. The retry loop belongs
// to the controller: Error.Retryable says where retrying can help.
//
// Tests run the same client against test/fakegke, an in-process ClusterManager.
package gke
