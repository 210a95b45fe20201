package kube_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// twoContextKubeconfig writes a kubeconfig with contexts alpha (namespace a, the
// current one) and beta (namespace b) on the test cluster, and unreachable, whose
// server listens nowhere.
func twoContextKubeconfig(t *testing.T, a, b string) string {
	t.Helper()
	cfg := cluster.Config
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.Clusters["nowhere"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:1"}
	kc.AuthInfos["user"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken}
	kc.Contexts["alpha"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "user", Namespace: a}
	kc.Contexts["beta"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "user", Namespace: b}
	kc.Contexts["unreachable"] = &clientcmdapi.Context{Cluster: "nowhere", AuthInfo: "user"}
	kc.CurrentContext = "alpha"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatalf("write kubeconfig: %v", err)
	}
	return path
}

// TestContextSwitch: ConnectContext reaches another context of the same
// kubeconfig with the same flags, and an unknown one is refused.
func TestContextSwitch(t *testing.T) {
	ctx := t.Context()
	a, b := cluster.Namespace(t), cluster.Namespace(t)
	seedOLMRelease(t, b, "ext-b", 1)
	kc := twoContextKubeconfig(t, a, b)
	o := parseOptions(t, []string{"--kubeconfig", kc, "--cache-dir", t.TempDir(), "--owner", olmOwner})
	cs := o.Contexts()
	if cs.Current != "alpha" {
		t.Errorf("current context %q, want alpha", cs.Current)
	}
	names, err := cs.List()
	if err != nil || fmt.Sprint(names) != "[alpha beta unreachable]" {
		t.Fatalf("contexts %v, %v", names, err)
	}
	c, err := cs.Connect("beta")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Ping(ctx); err != nil {
		t.Fatalf("ping beta: %v", err)
	}
	if got := c.Config().Namespace; got != b {
		t.Errorf("beta looks at namespace %q, want its context's %q", got, b)
	}
	rows, err := c.Releases(ctx)
	if err != nil || len(rows) != 1 || rows[0].Latest.Name != "ext-b" {
		t.Errorf("releases on beta: %v, %v", rows, err)
	}
	if _, err := cs.Connect("nope"); err == nil {
		t.Error("an unknown context connected")
	}
	bad, err := cs.Connect("unreachable")
	if err != nil {
		t.Fatal(err)
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := bad.Ping(pctx); err == nil {
		t.Error("an unreachable context answered")
	} else {
		t.Logf("unreachable: %v", err)
	}
}
