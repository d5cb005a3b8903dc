# shellcheck shell=bash
# The scripts that source this file read these variables:
# shellcheck disable=SC2034
# The versions of what the hack scripts build (from the Go module proxy) or
# compile (from ../shared/src), in one place. Sourced by the scripts; a variable
# already set in the environment wins (KUBE_VERSION=1.34.1 make envtest).
# test/argo reads ARGO_VERSION from here too (test/util.HackVersion).
#
# Not here: controller-gen and golangci-lint (the Makefile's own tools, pinned
# at its top), and the MPI Operator, whose version is go.mod's
# github.com/kubeflow/mpi-operator: the controller hack/cluster-tools.sh builds
# is the one whose CRD and types the code and the tests use.

# Kubernetes (kube-apiserver, kubectl, kube-controller-manager, kube-scheduler,
# kubelet, kube-proxy) and etcd: hack/envtest-assets.sh, hack/cluster-tools.sh.
KUBE_VERSION=${KUBE_VERSION:-1.33.4}
ETCD_VERSION=${ETCD_VERSION:-3.6.4}

# hack/cluster-tools.sh
KWOK_VERSION=${KWOK_VERSION:-v0.7.0}
HELM_VERSION=${HELM_VERSION:-v3.19.0}
ARGO_VERSION=${ARGO_VERSION:-v3.6.18}
COREDNS_VERSION=${COREDNS_VERSION:-v1.14.7}

# hack/emulators.sh. MinIO publishes no semver tags; this is the newest version
# the module proxy has.
FAKE_GCS_VERSION=${FAKE_GCS_VERSION:-v1.52.2}
MINIO_VERSION=${MINIO_VERSION:-v0.0.0-20260212201848-7aac2a2c5b7c}

# The benchmark sources as ../shared/src holds them (its SOURCES.md), built by
# hack/bench-tools.sh and by the mpi-debian image (hack/real-images.sh passes
# these, with the checksums that Dockerfile checks).
OSU_VERSION=${OSU_VERSION:-7.4}
OSU_SHA256=${OSU_SHA256:-c14a3e3f5f95b9ccf8c745fcdef161e029b472c28762306f9471a4b7d4dc5242}
IMB_VERSION=${IMB_VERSION:-2021.11}
IMB_SHA256=${IMB_SHA256:-082c9d040c01b01261b88c13e535b5c1996a071afd80bc1f10cf87dbfda10e57}
IOR_VERSION=${IOR_VERSION:-4.0.0}
IOR_SHA256=${IOR_SHA256:-3e1965e7ba7dd6449e710b95ae073fb351237f80134be7366eedea02bf40512f}
FABTESTS_VERSION=${FABTESTS_VERSION:-1.17.0}
FABTESTS_SHA256=${FABTESTS_SHA256:-c655b41f6633100dc147688ee0fb265717629aae7741a5001854872bda02b4ce}

# The archive names of those sources.
OSU_ARCHIVE=osu-micro-benchmarks-$OSU_VERSION.tar.gz
IMB_ARCHIVE=mpi-benchmarks-IMB-v$IMB_VERSION.tar.gz
IOR_ARCHIVE=ior-$IOR_VERSION.tar.gz
FABTESTS_ARCHIVE=fabtests-$FABTESTS_VERSION.tar.gz
