package kube

import (
	"fmt"
	"os"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Connect builds the clients from the flags, the way kubectl does, and returns the
// chunkview client.
func (o *Options) Connect() (*Client, error) {
	cfg, err := o.Resolve()
	if err != nil {
		return nil, err
	}
	// Every client made from the flags, the discovery client and REST mapper of
	// Helm's kube client included, gets chunkview's wrappers.
	o.Flags.WrapConfigFn = o.wrap
	rc, err := o.restConfig()
	if err != nil {
		return nil, err
	}
	ns, explicit, err := o.Flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil, fmt.Errorf("read the namespace from kubeconfig: %w", err)
	}
	cfg.Namespace, cfg.Server = ns, rc.Host
	if want := o.Flags.Context; want != nil && *want != "" {
		if raw, err := o.Flags.ToRawKubeConfigLoader().RawConfig(); err != nil || raw.CurrentContext != *want {
			cfg.Context = *want
		}
	}
	if cfg.StorageNamespace != "" && !explicit {
		// The records of every release namespace live together in the storage
		// namespace; the context's namespace (often just "default") says nothing
		// about which of them to show. Only -n narrows the view.
		cfg.AllNamespaces = true
	}
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("build clientset: %w", err)
	}
	md, err := metadata.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("build metadata client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("build dynamic client: %w", err)
	}
	c := New(cs, md, o.Flags, cfg).withDynamic(dyn)
	c.live = liveFromConfig(rc, md)
	return c, nil
}

// restConfig returns the REST config from the flags, wrapped by wrap.
func (o *Options) restConfig() (*rest.Config, error) {
	if err := o.checkKubeconfig(); err != nil {
		return nil, err
	}
	rc, err := o.Flags.ToRESTConfig()
	if err != nil {
		return nil, o.explainConfig(err)
	}
	return rc, nil
}

// checkKubeconfig returns ErrNoKubeconfig when no kubeconfig file exists where
// kubectl looks (--kubeconfig, else KUBECONFIG's files, else ~/.kube/config), and
// neither --server nor an in-cluster service account says where the cluster is.
// --kubeconfig /nope and KUBECONFIG=/nope then fail alike.
func (o *Options) checkKubeconfig() error {
	if o.Flags.APIServer != nil && *o.Flags.APIServer != "" {
		return nil
	}
	var files []string
	from := ""
	if o.Flags.KubeConfig != nil && *o.Flags.KubeConfig != "" {
		files, from = []string{*o.Flags.KubeConfig}, "--kubeconfig"
	} else {
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		files = rules.GetLoadingPrecedence()
		if os.Getenv(clientcmd.RecommendedConfigPathEnvVar) != "" {
			from = clientcmd.RecommendedConfigPathEnvVar
		}
		if _, err := rest.InClusterConfig(); err == nil {
			return nil
		}
	}
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			return nil
		}
	}
	return &noKubeconfigError{files: files, from: from}
}

// wrap returns a copy of rc with chunkview's User-Agent and wrappers: the test
// hook nearest the wire, then the request timeout, the request counter and, outermost, the
// read-only guard. The request timeout bounds every read, of chunkview and of
// Helm's clients alike; writes only when --request-timeout is given, since a
// write cut short may still be applied.
func (o *Options) wrap(rc *rest.Config) *rest.Config {
	rc = rest.CopyConfig(rc)
	rc.QPS, rc.Burst = 50, 100
	rc.UserAgent = UserAgent()
	if o.WrapConfig != nil {
		o.WrapConfig(rc)
	}
	d, err := o.requestTimeout()
	if err != nil {
		d = DefaultRequestTimeout // Resolve has refused it before any client is made
	}
	withRequestTimeout(rc, d, o.fs != nil && o.fs.Changed("request-timeout"))
	if o.Stats != nil {
		o.Stats.Count(rc)
	}
	if o.ReadOnly {
		ReadOnly(rc)
	}
	return rc
}
