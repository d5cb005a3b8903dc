// Package real runs benchwright on a real Kubernetes cluster on this machine
// (hack/real-cluster.sh): real kubelets and containerd in network namespaces,
// the images of images/ built without a registry (hack/real-images.sh), the
// chart installed by helm with the manager running as a pod from its image,
// the node tuner as a DaemonSet from its. Tools run for real: their figures
// are whatever this machine measures, and the tests check that every figure
// benchwright reports is the one the tool printed.
//
//	make test-real                                   # up, test, down (needs root)
//	REAL_REUSE=1 go test -tags real ./test/real/     # a real cluster that is up, as it is
//	REAL_KEEP=1 ...                                  # leave the cluster it created running
//	make bench-real                                  # StorageBenchmark vs a bare fio pod, alternated
//
// The tests are behind the build tag real, so that go test ./... leaves them out.
package real
