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
	flag.Parse()
	if fuzzOnly() {
		os.Exit(m.Run())
	}
	testcluster.Main(m, &cluster)
}

// fuzzOnly reports whether this process runs fuzz targets and nothing else, which
// need no cluster: a fuzzing worker, or the coordinator of `go test -fuzz X -run
// '^$'` (make fuzz). Starting envtest there costs seconds of start-up and two
// processes that compete with the fuzzing workers for the CPUs. A -fuzz run with
// any other -run runs the package's tests first, which need the cluster: it gets
// one.
func fuzzOnly() bool {
	if flag.Lookup("test.fuzzworker").Value.String() == "true" {
		return true
	}
	if flag.Lookup("test.fuzz").Value.String() == "" {
		return false
	}
	return flag.Lookup("test.run").Value.String() == "^$"
}
