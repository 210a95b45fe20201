# chunkview's build. `make demo` and `make test` work on a fresh machine: the test
# cluster binaries (kube-apiserver and etcd) are built from Go modules into bin/ once
# and reused afterwards.
SHELL := /bin/bash
GO ?= go
BIN := $(CURDIR)/bin
# envtest finds kube-apiserver and etcd here.
export KUBEBUILDER_ASSETS := $(BIN)

.PHONY: all build demo test test-go test-race test-tmux test-plugins plugins plugintools bench bench-large bench-reconcile fuzz mutants testbin vet clean

all: build

build: $(BIN)/chunkview

$(BIN)/chunkview: $(shell find . -name '*.go' -not -path './tools/*' -not -name '*_test.go') go.mod go.sum
	@mkdir -p $(BIN)
	$(GO) build -o $@ .

demo: build
	$(BIN)/chunkview --demo

# plugins makes chunkview the plugin of kubectl and of Helm from the binary built:
# kubectl-chunkview (the name kubectl runs `kubectl chunkview` by; krew installs
# it from packaging/krew), and plugin directories with their plugin.yaml and the
# binary, for `helm plugin install`: bin/plugins/helm/chunkview (Helm 3's format,
# which Helm 4 loads too) and bin/plugins/helm4/chunkview (Helm 4's).
plugins: $(BIN)/kubectl-chunkview $(BIN)/plugins/helm/chunkview/plugin.yaml $(BIN)/plugins/helm4/chunkview/plugin.yaml

$(BIN)/kubectl-chunkview: $(BIN)/chunkview
	ln -f $< $@

$(BIN)/plugins/helm/chunkview/plugin.yaml: plugin.yaml $(BIN)/chunkview
	@mkdir -p $(@D)/bin
	ln -f $(BIN)/chunkview $(@D)/bin/chunkview
	cp plugin.yaml $@

$(BIN)/plugins/helm4/chunkview/plugin.yaml: packaging/helm4/plugin.yaml $(BIN)/chunkview
	@mkdir -p $(@D)/bin
	ln -f $(BIN)/chunkview $(@D)/bin/chunkview
	cp packaging/helm4/plugin.yaml $@

# testbin builds the envtest binaries. Each is rebuilt only when it is missing or
# older than the tools module that pins it.
testbin: $(BIN)/kube-apiserver $(BIN)/etcd

$(BIN)/kube-apiserver: tools/go.mod tools/go.sum
	@mkdir -p $(BIN)
	@echo ">> building kube-apiserver from k8s.io/kubernetes (a cold build takes several minutes)"
	cd tools && GOWORK=off $(GO) build -o $@ k8s.io/kubernetes/cmd/kube-apiserver

$(BIN)/etcd: tools/go.mod tools/go.sum
	@mkdir -p $(BIN)
	@echo ">> building etcd from go.etcd.io/etcd/server/v3"
	cd tools && GOWORK=off $(GO) build -o $@ go.etcd.io/etcd/server/v3

# plugintools builds the clients the plugins are tested with: helm from Helm 3's
# and Helm 4's modules and kubectl from k8s.io/kubectl (tools/plugins pins them),
# and krew (tools/krew). Each is rebuilt only when missing or older than its module.
plugintools: $(BIN)/helm3 $(BIN)/helm4 $(BIN)/kubectl $(BIN)/krew

$(BIN)/helm3: tools/plugins/go.mod tools/plugins/go.sum
	@mkdir -p $(BIN)
	cd tools/plugins && GOWORK=off $(GO) build -o $@ helm.sh/helm/v3/cmd/helm

$(BIN)/helm4: tools/plugins/go.mod tools/plugins/go.sum
	@mkdir -p $(BIN)
	cd tools/plugins && GOWORK=off $(GO) build -o $@ helm.sh/helm/v4/cmd/helm

$(BIN)/kubectl: tools/plugins/go.mod tools/plugins/go.sum tools/plugins/kubectl/main.go
	@mkdir -p $(BIN)
	cd tools/plugins && GOWORK=off $(GO) build -o $@ ./kubectl

$(BIN)/krew: tools/krew/go.mod tools/krew/go.sum
	@mkdir -p $(BIN)
	cd tools/krew && GOWORK=off $(GO) build -o $@ sigs.k8s.io/krew/cmd/krew

test: testbin plugintools build test-go test-race test-tmux test-plugins

# MODULES are the Go modules of the repository (go.work): the app, the driver's
# library modules and the test cluster they share; ALL_PKGS their packages, since
# ./... stops at a nested module.
MODULES := . ./internal/testcluster ./storage ./storage/chunked ./storage/helm4
ALL_PKGS := $(addsuffix /...,$(MODULES))

# RACE_PKGS are the packages whose code starts goroutines (the driver's claims,
# settling and reads, the watch, the live view and its clock, the demo's seeding
# and operator, fit's renders, the diff, the fake API server and the fault
# proxy): test-race runs their whole suites under the race detector, and test-go
# runs every other package (GO_PKGS), so that those suites run once.
RACE_PKGS := ./storage/... ./storage/chunked/... ./storage/helm4/... ./kube ./ui/... ./demo ./fit ./revdiff ./internal/...
# In kube/ops and cli, the tests that run goroutines of their own also run under
# the race detector: the operations' writers racing and the pins, the prompt's
# reader and the demo's background seeding. They run in test-go too.
RACE_OPS := Race|Pin|Conflict
RACE_CLI := CtrlC|Demo|Rollback$$|Watch
GO_PKGS = $(shell $(GO) list $(ALL_PKGS) | grep -v -x -F "$$($(GO) list $(RACE_PKGS))")

# HELM_DRIVER narrows the stores chunkview reads, as it narrows helm's; the tests
# choose their stores themselves.
test-go: testbin
	$(GO) vet $(ALL_PKGS)
	$(if $(filter %/cli %/kube/ops,$(GO_PKGS)),,$(error test-go: the package list lacks cli or kube/ops: $(GO_PKGS)))
	HELM_DRIVER= $(GO) test -count=1 -timeout 30m $(GO_PKGS)

test-race: testbin
	HELM_DRIVER= $(GO) test -race -count=1 -timeout 40m $(RACE_PKGS)
	HELM_DRIVER= $(GO) test -race -count=1 -timeout 20m -run '$(RACE_OPS)' ./kube/ops
	HELM_DRIVER= $(GO) test -race -count=1 -timeout 20m -run '$(RACE_CLI)' ./cli

test-tmux: build
	HELM_DRIVER= bash hack/tmux-demo-test.sh $(BIN)/chunkview

# test-plugins runs `helm chunkview` with Helm 3 and Helm 4, and `kubectl
# chunkview` (found on PATH, and installed by krew), on the demo.
test-plugins: plugintools plugins
	bash hack/plugin-test.sh $(BIN)

bench: testbin
	$(GO) run ./hack/bench

# bench-large measures a fleet ten times the revisions of bench's (20,000) and
# writes its own section of BENCHMARKS.md.
bench-large: testbin
	$(GO) run ./hack/bench -fleet large

# bench-reconcile measures OLMv1's steady-state reconcile (History, Get, a server
# dry-run Upgrade, through helm-operator-plugins' ActionClientGetter) over an
# OLMv1-shaped fleet of 40 extensions, at 5 and 10 revisions, for each read path
# side by side (the original driver and chunkview's, live, over controller-runtime's
# cache, and with the cached read path at three bounds), and writes its section of
# BENCHMARKS.md. It takes one to two hours on 2 shared CPUs.
bench-reconcile: testbin
	$(GO) run ./hack/bench -reconcile

# fuzz runs every fuzz target for FUZZTIME each; none needs the test cluster
# (-run '^$$' keeps storage's TestMain from starting one). Go minimizes each new
# input that widens coverage for up to a minute, with a pass quadratic in its
# size, and counts no execution meanwhile: FUZZMINIMIZE bounds it.
FUZZTIME ?= 60s
FUZZMINIMIZE ?= 1000x
FUZZ_TARGETS := FuzzDecodeIndex FuzzDecodePayload FuzzUnmarshalRelease FuzzUnknownFields \
	FuzzDecodeHelmRecord FuzzPeekSummary FuzzPeekHelmSummary
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo ">> $$t"; \
		$(GO) test ./storage -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE); \
	done

# mutants applies each one-line sabotage of hack/mutants/table.go (through
# go test -overlay: the tree is never written) and runs the tests that must
# catch it; TESTING.md keeps the table and the last score. MUTANTS_FLAGS goes
# to hack/mutants: -packages runs each mutant against every test of its
# targets' packages, -run REGEXP some mutants, -o FILE writes the report.
MUTANTS_FLAGS ?=
mutants: testbin
	HELM_DRIVER= $(GO) run ./hack/mutants $(MUTANTS_FLAGS)

vet:
	$(GO) vet $(ALL_PKGS)

clean:
	rm -rf $(BIN)
