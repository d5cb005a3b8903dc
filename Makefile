# benchwright — the Makefile is the contract: `make help` lists what it does.

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec

# The Makefile's own tools, pinned here; what the hack scripts build (Kubernetes,
# etcd, kwok, helm, ...) is pinned in hack/versions.sh. Tools are cached outside
# the repo, so a fresh clone on a machine that built them once does not build
# them again.
CONTROLLER_GEN_VERSION ?= v0.19.0
GOLANGCI_LINT_VERSION  ?= v2.15.0
CACHE                  ?= $(or $(BENCHWRIGHT_CACHE),$(HOME)/.cache/benchwright)
LOCALBIN               ?= $(CACHE)/bin
CONTROLLER_GEN         ?= $(LOCALBIN)/controller-gen-$(CONTROLLER_GEN_VERSION)
GOLANGCI_LINT          ?= $(LOCALBIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)
# kube-api-linter has no releases: a pseudo-version. hack/tools/kal/go.mod pins
# the same two versions (its build fails if they differ).
KUBE_API_LINTER_VERSION ?= v0.0.0-20260716143926-092fe0c72997
GOLANGCI_LINT_KAL      ?= $(LOCALBIN)/golangci-lint-kal-$(GOLANGCI_LINT_VERSION)-$(KUBE_API_LINTER_VERSION)
export BENCHWRIGHT_CACHE := $(CACHE)

GO_TEST_FLAGS ?= -count=1

.PHONY: all
all: build

##@ General

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

##@ Run

.PHONY: demo
demo: cli ## Run the quickstart fio benchmark on this machine (installs fio if it can).
	hack/ensure-tools.sh fio
	bin/benchwright run -f examples/quickstart/fio.yaml

##@ Development

.PHONY: dev-cluster
dev-cluster: ## A local control plane with kwok nodes, the MPI Operator and benchwright (chart + manager); `eval "$(hack/dev-cluster.sh env)"` to use it.
	hack/dev-cluster.sh up

.PHONY: dev-cluster-down
dev-cluster-down: ## Stop and delete the local control plane.
	hack/dev-cluster.sh down

.PHONY: real-cluster
real-cluster: ## A real cluster here (root): control plane + 2 real kubelets with containerd in network namespaces, images built without a registry, the chart by helm; `eval "$$(hack/real-cluster.sh env)"` to use it. ARGO=1: Argo Workflows too.
	hack/real-cluster.sh up

.PHONY: real-cluster-down
real-cluster-down: ## Stop the real cluster; leaves no process, mount, network namespace or cgroup.
	hack/real-cluster.sh down

.PHONY: real-images
real-images: ## Build images/ with buildah from a debootstrapped Debian base (no registry; cached by digest).
	hack/real-images.sh

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Generate deepcopy code, then the manifests.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./api/..."
	$(MAKE) --no-print-directory manifests

.PHONY: manifests
manifests: $(CONTROLLER_GEN) ## Generate CRDs (config/crd), RBAC (config/rbac), the chart's copies of them and internal/crdbounds' copy of the CRDs; the TuningProfile's sysctl allow-list rule from internal/tuning's table first.
	go run ./hack/sysctlrule
	$(CONTROLLER_GEN) crd:allowDangerousTypes=true paths="./api/..." output:crd:artifacts:config=config/crd/bases
	rm -f internal/crdbounds/crds/*.yaml && mkdir -p internal/crdbounds/crds && cp config/crd/bases/*.yaml internal/crdbounds/crds/
	$(CONTROLLER_GEN) rbac:roleName=manager-role paths="./..." output:rbac:artifacts:config=config/rbac
	hack/sync-chart.sh

.PHONY: fmt
fmt: ## Run gofmt on the code.
	gofmt -s -w $$(git ls-files '*.go')

.PHONY: vet
vet: ## Run go vet.
	go vet ./...

.PHONY: lint
lint: $(GOLANGCI_LINT) ## Run golangci-lint.
	$(GOLANGCI_LINT) run ./...

.PHONY: lint-api
lint-api: $(GOLANGCI_LINT_KAL) ## Lint the API types (api/) with kube-api-linter (.golangci-kal.yml).
	$(GOLANGCI_LINT_KAL) run --config .golangci-kal.yml ./api/...

.PHONY: verify
verify: verify-tidy verify-shell generate lint lint-api ## Check go.mod is tidy, shellcheck the scripts, regenerate, lint (and the API with kube-api-linter), and fail if anything changed.
	@if [ -n "$$(git status --porcelain)" ]; then \
	  echo "verify: the tree differs after make generate (commit the generated files):"; \
	  git status --porcelain; git --no-pager diff --stat; exit 1; fi

.PHONY: verify-tidy
verify-tidy: ## Fail if go mod tidy would change go.mod or go.sum (also hack/tools/kal's).
	@diff=$$(go mod tidy -diff 2>&1) || { echo "$$diff"; \
	  echo "verify: go.mod/go.sum are not tidy: run go mod tidy and commit go.mod and go.sum"; exit 1; }
	@diff=$$(go -C hack/tools/kal mod tidy -diff 2>&1) || { echo "$$diff"; \
	  echo "verify: hack/tools/kal/go.mod/go.sum are not tidy: run go mod tidy there and commit them"; exit 1; }

.PHONY: verify-shell
verify-shell: ## shellcheck every shell script (hack/, images/, .ci/); installs Debian's shellcheck when missing.
	hack/shellcheck.sh

##@ Test

.PHONY: test
test: test-deps test-tools test-unit test-integration test-chart test-argo argo-lint ## Run unit, integration, chart and campaign-template tests (installs and builds what they need first).

.PHONY: test-tools
test-tools: ## Build, before any go test and all at once, the tools tests run: envtest's API server and etcd, the object-storage emulators, helm, argo and the real OSU, IMB, IOR and fabtests (from the module proxy and ../shared/src; cached, a warm run is a no-op). The dev- and real-cluster tools are built by the targets that run those clusters.
	hack/test-tools.sh

.PHONY: test-deps
test-deps: ## Install the Debian packages the tests run (real fio, OpenMPI and MPICH with their compilers, libfabric, sysstat, PostgreSQL); as root, else print the apt line.
	hack/ensure-packages.sh gcc make autoconf automake libtool fio openmpi-bin libopenmpi-dev mpich libmpich-dev libfabric-dev iperf3 chromium sysstat postgresql

.PHONY: test-unit
test-unit: ## Run unit tests (no API server); the real OSU, IMB, IOR and fabtests are built first (hack/bench-tools.sh, cached).
	tools="$$(hack/bench-tools.sh)" && eval "$$(echo "$$tools" | sed -n 's/^BENCH_TOOLS_/export &/p')" && \
	go test $(GO_TEST_FLAGS) $$(go list ./... | grep -v -e /test/integration -e /test/chart -e /test/argo -e /test/e2e -e /test/real)

.PHONY: test-integration
test-integration: envtest ## Run integration tests against a real kube-apiserver and etcd.
	KUBEBUILDER_ASSETS="$$(hack/envtest-assets.sh)" go test $(GO_TEST_FLAGS) ./test/integration/...

.PHONY: test-chart
test-chart: ## Lint and render the Helm chart with the real helm (built once from the module proxy).
	go test $(GO_TEST_FLAGS) ./test/chart/...

.PHONY: test-argo
test-argo: envtest ## Create the campaign WorkflowTemplate and dry-run examples/campaigns against a real API server with Argo's CRDs.
	export $$(hack/cluster-tools.sh helm argo) && \
	KUBEBUILDER_ASSETS="$$(hack/envtest-assets.sh)" go test $(GO_TEST_FLAGS) ./test/argo/...

.PHONY: argo-lint
argo-lint: ## argo lint --offline on the chart's WorkflowTemplate and examples/campaigns.
	hack/argo-lint.sh

.PHONY: test-e2e
test-e2e: ## End to end on a local control plane with kwok nodes: brings it up (hack/dev-cluster.sh), installs the chart with helm, runs the examples, tears it down.
	go test -tags e2e $(GO_TEST_FLAGS) -timeout 30m ./test/e2e/

.PHONY: chaos
chaos: ## On a local control plane with kwok nodes (AUDIT=1, 6 nodes): 50 benchmarks while the manager is SIGKILLed 10 times at its crash points and kube-apiserver restarts once; checks each run, child and stored repetition exists once and nothing leaks (E2E_CHAOS_SEED replays a run).
	AUDIT=1 NODES=6 E2E_CHAOS=1 go test -tags e2e $(GO_TEST_FLAGS) -timeout 20m -run '^TestChaos$$' -v ./test/e2e/

# REAL_SKIP: a pattern of test/real tests test-real leaves out too (.ci/run's
# cold mode sets it).
REAL_SKIP ?=

.PHONY: test-real
test-real: ## On a real cluster here (root) with Argo Workflows: brings it up, runs real fio, dd, MPI, fabtests, the tuner and campaigns (a 2x2x3 matrix, a failed cell retried, a Workflow deleted mid-run, a node lost mid-campaign) through the chart's manager pod and WorkflowTemplate, tears it down.
	ARGO=1 REAL_ARGO=1 go test -tags real $(GO_TEST_FLAGS) -v -timeout 80m -skip '^(TestSeedS|TestRunToRunNoise|TestCronCampaign$(if $(REAL_SKIP),|$(REAL_SKIP)))' ./test/real/

.PHONY: campaigns-real
campaigns-real: ## On a real cluster here (root) with Argo Workflows: the seeds' example campaigns (examples/campaigns), their pools the seeds' GKE node pools, whose nodes join through the real cluster's GKE endpoint (GKE_NODES=5 slots: seed 002's pool has five nodes); each report's figures checked against the stored samples. Not in CI (time); SEEDS='S1|S4' picks (S0Storage, S0MPI, S1, S2, S3, S4).
	ARGO=1 REAL_ARGO=1 GKE_NODES=$(or $(GKE_NODES),5) go test -tags real $(GO_TEST_FLAGS) -timeout 120m -run '^TestSeed($(or $(SEEDS),S.*))$$' -v ./test/real/

.PHONY: bench-real-gke
bench-real-gke: ## On a real cluster here (root): what GKE nodes cost this machine: a GKE pool of GKE_NODES (default 8) nodes through the real cluster's GKE endpoint, its seconds to Ready, each node's memory, the machine's memory and idle CPU with them; twice (the first imports the images into new slots).
	GKE_NODES=$(or $(GKE_NODES),8) REAL_GKE_CAPACITY=1 go test -tags real -count=2 -timeout 30m -run '^TestGKENodeCapacity$$' -v ./test/real/

.PHONY: cron-real
cron-real: ## On a real cluster here (root) with Argo Workflows: examples/cron/s1-nightly.yaml every minute with one fio cell, until two scheduled campaigns succeed; the history holds both (about 5 minutes; not in CI).
	ARGO=1 REAL_ARGO=1 go test -tags real -count=1 -timeout 30m -run '^TestCronCampaign$$' -v ./test/real/

.PHONY: history-noise-real
history-noise-real: ## On a real cluster here (root): fio 4k random reads RUNS times (default 8) under one name, and the run-to-run coefficient of variation of their medians, from the results database (the noise the regression detector's synthetic figures use).
	go test -tags real -count=1 -timeout 30m -run '^TestRunToRunNoise$$' -v ./test/real/

.PHONY: test-real-argo
test-real-argo: ## On a real cluster here (root) with Argo Workflows (ARGO=1: its workflow-controller and argoexec, built from the module proxy): the campaign tests only (matrix, retry, deletion, node lost), with each cell's time.
	ARGO=1 REAL_ARGO=1 go test -tags real $(GO_TEST_FLAGS) -timeout 60m -run '^TestArgo' -v ./test/real/

.PHONY: bench-real
bench-real: ## StorageBenchmark vs a bare fio pod on a real node, alternated (PAIRS=5): IOPS ratio per pair and the operator's added seconds.
	go test -tags real ./test/real/ -run '^$$' -bench 'FioStorageBenchmarkVsBarePod' -benchtime=1x -count=1 -timeout 60m

.PHONY: bench-resultsdb
bench-resultsdb: ## The results database on SQLite and a real PostgreSQL: indexing a run of 100 000 samples, and one configuration's last 100 runs among 100 000 (the first builds that database: about 2 minutes).
	go test ./internal/resultsdb/ -run '^$$' -bench . -benchtime 5x -count 1 -v -timeout 30m

.PHONY: bench-regress
bench-regress: ## The regression detector's targets on synthetic histories of 30 runs (issue 45), 400 series a case with their 95 % Wilson intervals (make test runs 60 a case).
	BENCHWRIGHT_REGRESS_SERIES=400 go test ./internal/regress/ -run '^TestTargetsOnSyntheticHistories$$' -count 1 -v -timeout 60m

.PHONY: bench-real-sampler
bench-real-sampler: ## What the sampler sidecar costs, on a real cluster, alternated pairs: fio's IOPS and OSU's 8 B latency and bandwidth with it on and off (PAIRS=5), and osu_latency and fio again and again in a twin of the benchmark's pods with the samplers running and stopped (15 pairs); PAIRS=N sets both.
	go test -tags real ./test/real/ -run '^$$' -bench 'SamplerOnVsOff|SamplerPausedVsRunning' -benchtime=1x -count=1 -timeout 90m

.PHONY: bench-real-campaign
bench-real-campaign: ## A one-cell campaign under the real Argo controller vs the same pool and fio StorageBenchmark created directly, alternated (PAIRS=5): what the campaign adds, and a cell's own overhead.
	ARGO=1 REAL_ARGO=1 go test -tags real ./test/real/ -run '^$$' -bench 'CampaignCellVsDirect' -benchtime=1x -count=1 -timeout 60m -v

.PHONY: bench-real-mpi
bench-real-mpi: ## OSU through an MPIBenchmark vs a bare mpirun in a twin of its pods, alternated (PAIRS=8, LAYOUT=off|on, MPI=openmpi|mpich): latency and bandwidth ratios, seconds to first output.
	go test -tags real ./test/real/ -run '^$$' -bench 'OSUMPIBenchmarkVsBareMPIRun' -benchtime=1x -count=1 -timeout 60m

.PHONY: bench-e2e
bench-e2e: ## 200 StorageBenchmarks + 100 MPIBenchmarks on 100 kwok nodes: time to Succeeded, creation-to-child p50/p99, manager peak RSS, API requests per benchmark.
	hack/bench-e2e.sh

.PHONY: bench-growth
bench-growth: ## bench-e2e at 100, 300 and 1000 benchmarks (2:1 storage:MPI), with the control plane's default client limits and lifted; one table.
	hack/bench-growth.sh

.PHONY: bench-envtest
bench-envtest: envtest ## Benchmark creation-to-first-child latency of 100 StorageBenchmarks (Job) and 100 MPIBenchmarks (MPIJob) in envtest (p50/p99/max).
	KUBEBUILDER_ASSETS="$$(hack/envtest-assets.sh)" go test ./test/integration/ -run '^$$' -bench 'CreationTo' -benchtime=1x -count=1

FUZZTIME ?= 30s
.PHONY: fuzz
fuzz: ## Run every parser fuzz target for FUZZTIME each (default 30s); a stop with Go's coordinator race (golang/go#75804) and no failing input runs once more.
	FUZZTIME=$(FUZZTIME) hack/fuzz.sh

.PHONY: envtest
envtest: ## Build kube-apiserver, kubectl and etcd for envtest (versions: hack/versions.sh; cached; warm run is a no-op).
	@hack/envtest-assets.sh >/dev/null

##@ Build

.PHONY: build
build: cli ## Build the binaries (manager, benchwright) into bin/.
	go build -buildvcs=auto -o bin/manager ./cmd/manager

.PHONY: cli
cli: ## Build the benchwright CLI into bin/ (all a local run needs).
	go build -buildvcs=auto -o bin/benchwright ./cmd/benchwright

##@ Tools

$(CONTROLLER_GEN):
	@mkdir -p $(LOCALBIN)
	GOBIN=$(LOCALBIN)/.tmp go install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_GEN_VERSION)
	mv $(LOCALBIN)/.tmp/controller-gen $@

$(GOLANGCI_LINT):
	@mkdir -p $(LOCALBIN)
	GOBIN=$(LOCALBIN)/.tmp go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	mv $(LOCALBIN)/.tmp/golangci-lint $@

# golangci-lint with the kube-api-linter module plugin compiled in: what
# `golangci-lint custom` builds from a .custom-gcl.yml, but that git-clones
# golangci-lint from GitHub; this is a plain `go build` of hack/tools/kal from
# the module proxy (go.sum committed).
$(GOLANGCI_LINT_KAL):
	@mkdir -p $(LOCALBIN)
	@want="github.com/golangci/golangci-lint/v2 $(GOLANGCI_LINT_VERSION) sigs.k8s.io/kube-api-linter $(KUBE_API_LINTER_VERSION)"; \
	have="$$(go -C hack/tools/kal list -m -f '{{.Path}} {{.Version}}' github.com/golangci/golangci-lint/v2 sigs.k8s.io/kube-api-linter | paste -sd' ')"; \
	[ "$$have" = "$$want" ] || { echo "hack/tools/kal/go.mod pins $$have; the Makefile wants $$want"; exit 1; }
	go -C hack/tools/kal build -buildvcs=false -o $@.tmp . && mv $@.tmp $@
