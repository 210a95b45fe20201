package kube

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/chunkview/chunkview/storage"
)

// Profile is a named set of storage defaults for a known deployment of the format.
type Profile struct {
	Name             string
	Owner            string
	StorageNamespace string
	ChunkSize        int
	MaxReadChunks    int
	MaxWriteChunks   int
}

// Profiles are the deployments chunkview knows. The default suits a plain
// helm-operator-plugins setup: owner helm, records beside the release.
var Profiles = map[string]Profile{
	"default": {Name: "default", Owner: storage.HelmOwner, ChunkSize: storage.DefaultChunkSize},
	"olmv1": {Name: "olmv1", Owner: "operator-controller", StorageNamespace: "olmv1-system",
		ChunkSize: storage.DefaultChunkSize, MaxReadChunks: 11, MaxWriteChunks: 11},
}

// Options are the connection and storage flags, as kubectl users know them.
type Options struct {
	Flags            *genericclioptions.ConfigFlags
	AllNamespaces    bool
	StorageNamespace string
	Owner            string
	Profile          string
	ChunkSize        int
	MaxReadChunks    int
	MaxWriteChunks   int
	ReadOnly         bool
	// Namespaces are looked at with -A when listing across all namespaces is
	// forbidden.
	Namespaces []string
	// Drivers are the --driver values: the stores to read (see ParseDrivers).
	Drivers []string
	// HelmDriver is HELM_DRIVER, read as Helm reads it when --driver is not
	// given.
	HelmDriver string
	// StuckAfter is --stuck-after: how long a revision may stay pending before
	// it is stuck.
	StuckAfter time.Duration

	// Stats, when set, counts requests and bytes on every connection made.
	Stats *Stats
	// WrapConfig, when set, is applied to the REST config before anything else (tests
	// use it to put a proxy or a fault in the way).
	WrapConfig func(*rest.Config)
	// Now, when set, is the clock of the clients made (Config.Now).
	Now func() time.Time

	fs *pflag.FlagSet
}

// NewOptions returns options with kubectl's connection flags. --request-timeout
// defaults to DefaultRequestTimeout rather than kubectl's 0 (wait for ever).
func NewOptions() *Options {
	f := genericclioptions.NewConfigFlags(true)
	def := DefaultRequestTimeout.String()
	f.Timeout = &def
	return &Options{Flags: f, Profile: "default", HelmDriver: os.Getenv("HELM_DRIVER")}
}

// AddFlags registers the flags on fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	o.fs = fs
	o.Flags.AddFlags(fs)
	fs.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "look at releases in every namespace")
	fs.StringVar(&o.StorageNamespace, "storage-namespace", "", "namespace holding the index and chunk Secrets, when it is not the release's (OLMv1: olmv1-system)")
	fs.StringVar(&o.Owner, "owner", "", `owner label of the release Secrets (default "helm"; OLMv1: operator-controller)`)
	fs.StringVar(&o.Profile, "profile", "default", "storage defaults: default (helm-operator-plugins) or olmv1")
	fs.IntVar(&o.ChunkSize, "chunk-size", 0, fmt.Sprintf("largest slice stored per Secret, in bytes (default %d)", storage.DefaultChunkSize))
	fs.IntVar(&o.MaxReadChunks, "max-read-chunks", 0, "refuse to read releases of more chunks (0: no limit)")
	fs.IntVar(&o.MaxWriteChunks, "max-write-chunks", 0, "refuse to write releases of more chunks (0: no limit)")
	fs.BoolVar(&o.ReadOnly, "read-only", false, "refuse every change to the cluster; no mutating request leaves chunkview")
	fs.StringSliceVar(&o.Drivers, "driver", nil, "stores to read: chunked, secret (Helm's Secrets), configmap (Helm's ConfigMaps); repeated or comma-separated (default: HELM_DRIVER if set, else all; with an --owner other than helm, chunked)")
	fs.DurationVar(&o.StuckAfter, "stuck-after", DefaultStuckAfter, "how long a revision may stay pending (or uninstalling) before it counts as stuck rather than in progress")
	fs.StringSliceVar(&o.Namespaces, "namespaces", nil, "with -A, when listing across all namespaces is forbidden, namespaces to look in besides the context's (comma-separated)")
}

// Resolve applies the profile under the flags the user set and returns the storage
// configuration.
func (o *Options) Resolve() (Config, error) {
	p, ok := Profiles[o.Profile]
	if !ok {
		return Config{}, fmt.Errorf("unknown --profile %q: use default or olmv1", o.Profile)
	}
	changed := func(name string) bool { return o.fs != nil && o.fs.Changed(name) }
	if o.StuckAfter < 0 {
		return Config{}, fmt.Errorf("--stuck-after %s: want a positive duration such as 5m", o.StuckAfter)
	}
	cfg := Config{
		Profile:            p.Name,
		StuckAfter:         o.StuckAfter,
		Owner:              p.Owner,
		StorageNamespace:   p.StorageNamespace,
		AllNamespaces:      o.AllNamespaces,
		ReadOnly:           o.ReadOnly,
		FallbackNamespaces: o.Namespaces,
		Now:                o.Now,
		Driver: storage.ChunkedSecretsConfig{
			ChunkSize: p.ChunkSize, MaxReadChunks: p.MaxReadChunks, MaxWriteChunks: p.MaxWriteChunks,
		},
	}
	if o.Owner != "" {
		cfg.Owner = o.Owner
	}
	ds, err := ParseDrivers(o.Drivers, o.HelmDriver)
	if err != nil {
		return Config{}, err
	}
	switch {
	case len(o.Drivers) > 0:
		cfg.DriversFrom = "--driver"
	case o.HelmDriver != "":
		cfg.DriversFrom = "HELM_DRIVER=" + o.HelmDriver
	case cfg.Owner != HelmOwner:
		// Helm's own drivers always label their records owner=helm: an owner
		// of another name (--owner, --profile olmv1) selects chunked records
		// alone.
		ds, cfg.DriversFrom = []string{DriverChunked}, "--owner "+cfg.Owner
	}
	cfg.Drivers = ds
	if changed("storage-namespace") || o.StorageNamespace != "" {
		cfg.StorageNamespace = o.StorageNamespace
	}
	if o.ChunkSize != 0 {
		cfg.Driver.ChunkSize = o.ChunkSize
	}
	if changed("max-read-chunks") || o.MaxReadChunks != 0 {
		cfg.Driver.MaxReadChunks = o.MaxReadChunks
	}
	if changed("max-write-chunks") || o.MaxWriteChunks != 0 {
		cfg.Driver.MaxWriteChunks = o.MaxWriteChunks
	}
	if cfg.Driver.ChunkSize < 1024 || cfg.Driver.ChunkSize > storage.MaxSecretDataBytes-1024 {
		return Config{}, fmt.Errorf("--chunk-size %d is out of range: use 1024..%d so the index Secret keeps room for its chunk list", cfg.Driver.ChunkSize, storage.MaxSecretDataBytes-1024)
	}
	if cfg.Driver.MaxReadChunks < 0 || cfg.Driver.MaxWriteChunks < 0 {
		return Config{}, fmt.Errorf("--max-read-chunks and --max-write-chunks must not be negative")
	}
	d, err := o.requestTimeout()
	if err != nil {
		return Config{}, err
	}
	cfg.RequestTimeout = d
	if changed("request-timeout") && d > 0 {
		cfg.Driver.Timeout = d * 4 // one driver call makes several requests
	}
	return cfg, nil
}

// requestTimeout returns --request-timeout: how long one request may wait for
// the API server's answer, 0 for no limit.
func (o *Options) requestTimeout() (time.Duration, error) {
	switch {
	case o.Flags.Timeout == nil || *o.Flags.Timeout == "":
		return DefaultRequestTimeout, nil
	case *o.Flags.Timeout == "0":
		return 0, nil
	}
	d, err := time.ParseDuration(*o.Flags.Timeout)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("--request-timeout %q: want a duration such as 30s (0 waits for ever)", *o.Flags.Timeout)
	}
	return d, nil
}

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
