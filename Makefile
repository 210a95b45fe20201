# chunkview's build. `make demo` and `make test` work on a fresh machine: the test
# cluster binaries (kube-apiserver and etcd) are built from Go modules into bin/ once
# and reused afterwards.
SHELL := /bin/bash
GO ?= go
BIN := $(CURDIR)/bin
# envtest finds kube-apiserver and etcd here.
export KUBEBUILDER_ASSETS := $(BIN)

.PHONY: all build demo test test-go test-race test-tmux bench bench-large fuzz testbin vet clean

all: build

build: $(BIN)/chunkview

$(BIN)/chunkview: $(shell find . -name '*.go' -not -path './tools/*' -not -name '*_test.go') go.mod go.sum
	@mkdir -p $(BIN)
	$(GO) build -o $@ .

demo: build
	$(BIN)/chunkview --demo

# testbin builds the envtest binaries. Each is rebuilt only when it is missing or
# older than the tools module that pins it.
testbin: $(BIN)/kube-apiserver $(BIN)/etcd

$(BIN)/kube-apiserver: tools/go.mod tools/go.sum
	@mkdir -p $(BIN)
	@echo ">> building kube-apiserver from k8s.io/kubernetes (a cold build takes several minutes)"
	cd tools && $(GO) build -o $@ k8s.io/kubernetes/cmd/kube-apiserver

$(BIN)/etcd: tools/go.mod tools/go.sum
	@mkdir -p $(BIN)
	@echo ">> building etcd from go.etcd.io/etcd/server/v3"
	cd tools && $(GO) build -o $@ go.etcd.io/etcd/server/v3

test: testbin build test-go test-race test-tmux

# HELM_DRIVER narrows the stores chunkview reads, as it narrows helm's; the tests
# choose their stores themselves.
test-go: testbin
	$(GO) vet ./...
	HELM_DRIVER= $(GO) test -count=1 -timeout 30m ./...

# test-race runs the concurrency tests (writers racing on one release) under the
# race detector.
test-race: testbin
	HELM_DRIVER= $(GO) test -race -count=1 -timeout 20m -run 'Race' ./storage ./kube

test-tmux: build
	HELM_DRIVER= bash hack/tmux-demo-test.sh $(BIN)/chunkview

bench: testbin
	$(GO) run ./hack/bench

# bench-large measures a fleet ten times the revisions of bench's (20,000) and
# writes its own section of BENCHMARKS.md.
bench-large: testbin
	$(GO) run ./hack/bench -fleet large

fuzz:
	$(GO) test ./storage -run '^$$' -fuzz FuzzDecodeIndex -fuzztime 60s
	$(GO) test ./storage -run '^$$' -fuzz FuzzDecodePayload -fuzztime 60s
	$(GO) test ./storage -run '^$$' -fuzz FuzzUnmarshalRelease -fuzztime 60s

vet:
	$(GO) vet ./...

clean:
	rm -rf $(BIN)
