package kubetest

import (
	"net"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// SilentServer listens on loopback, accepts connections and never answers: a
// server behind a proxy or VPN that holds the connection. It returns its URL and
// the number of connections it accepted; everything closes with the test.
func SilentServer(t testing.TB) (string, *atomic.Int32) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		accepted atomic.Int32
		mu       sync.Mutex
		conns    []net.Conn
	)
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
	}()
	return "http://" + l.Addr().String(), &accepted
}

// SilentKubeconfig writes a kubeconfig whose server is a SilentServer, and returns
// its path and the server's count of accepted connections.
func SilentKubeconfig(t testing.TB) (string, *atomic.Int32) {
	t.Helper()
	server, accepted := SilentServer(t)
	kc := clientcmdapi.NewConfig()
	kc.Clusters["silent"] = &clientcmdapi.Cluster{Server: server}
	kc.AuthInfos["user"] = &clientcmdapi.AuthInfo{}
	kc.Contexts["silent"] = &clientcmdapi.Context{Cluster: "silent", AuthInfo: "user", Namespace: "default"}
	kc.CurrentContext = "silent"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path, accepted
}
