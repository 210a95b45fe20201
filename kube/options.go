package kube

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"

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
