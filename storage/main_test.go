package storage_test

import (
	"flag"
	"os"
	"testing"

	"github.com/chunkview/chunkview/internal/testcluster"
)

// cluster is the real API server and etcd every test in this package runs against.
var cluster *testcluster.Cluster

func TestMain(m *testing.M) {
	// A fuzzing worker process runs only a fuzz target, which needs no cluster; not
	// starting one per worker keeps `go test -fuzz` light.
	flag.Parse()
	if f := flag.Lookup("test.fuzzworker"); f != nil && f.Value.String() == "true" {
		os.Exit(m.Run())
	}
	testcluster.Main(m, &cluster)
}
