package helm4_test

import (
	"testing"

	"github.com/chunkview/chunkview/internal/testcluster"
)

// cluster is the real API server and etcd every test in this package runs against.
var cluster *testcluster.Cluster

func TestMain(m *testing.M) { testcluster.Main(m, &cluster) }
