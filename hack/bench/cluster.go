package main

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/chunkview/chunkview/internal/testcluster"
)

// benchCluster is the API server the fleet lives on.
type benchCluster struct {
	Config     *rest.Config
	Client     kubernetes.Interface
	Kubeconfig string // path of a kubeconfig for it, for the processes measured
	stop       func() error
}

func (c *benchCluster) Stop() error {
	if c.stop == nil {
		return nil
	}
	return c.stop()
}

// startCluster starts kube-apiserver and etcd from the envtest binaries (the ones
// `make testbin` builds, found the way internal/testcluster finds them), with room
// in etcd for the whole fleet, and writes a kubeconfig for it into dir.
func startCluster(dir string) (*benchCluster, error) {
	assets := testcluster.AssetsDir()
	for _, b := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(assets, b)); err != nil {
			return nil, fmt.Errorf("test cluster binary %s not found in %s: run `make testbin` first: %w", b, assets, err)
		}
	}
	env := &envtest.Environment{BinaryAssetsDirectory: assets}
	env.ControlPlane.Etcd = &envtest.Etcd{}
	// The default 2 GiB backend quota is close to what the fleet, its history and the
	// write benchmarks take.
	env.ControlPlane.Etcd.Configure().Set("quota-backend-bytes", fmt.Sprint(8<<30))
	cfg, err := env.Start()
	if err != nil {
		return nil, fmt.Errorf("start envtest control plane from %s: %w", assets, err)
	}
	c, err := clusterFor(cfg)
	if err != nil {
		_ = env.Stop()
		return nil, err
	}
	c.stop = env.Stop
	c.Kubeconfig = filepath.Join(dir, "kubeconfig")
	if err := writeKubeconfig(cfg, c.Kubeconfig); err != nil {
		_ = env.Stop()
		return nil, err
	}
	return c, nil
}

// connectCluster uses the cluster a kubeconfig points at.
func connectCluster(kubeconfig string) (*benchCluster, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig %s: %w", kubeconfig, err)
	}
	c, err := clusterFor(cfg)
	if err != nil {
		return nil, err
	}
	c.Kubeconfig = kubeconfig
	return c, nil
}

func clusterFor(cfg *rest.Config) (*benchCluster, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 1000, 2000
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("clientset: %w", err)
	}
	return &benchCluster{Config: cfg, Client: cs}, nil
}

// writeKubeconfig writes a kubeconfig with cfg's server and credentials to path.
func writeKubeconfig(cfg *rest.Config, path string) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "admin", Namespace: "default"}
	kc.CurrentContext = "envtest"
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return fmt.Errorf("write kubeconfig: %w", err)
	}
	return nil
}

// restConfigFrom loads a kubeconfig for a measured process, with the request rate
// chunkview itself uses (client-go's default of 5 per second would throttle the
// peers' chunk reads, not measure them).
func restConfigFrom(kubeconfig string) (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 50, 100
	return cfg, nil
}
