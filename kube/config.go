package kube

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/chunkview/chunkview/storage"
)

// Config says where release records are stored and how to read them.
type Config struct {
	// Owner is the owner label of the records.
	Owner string
	// StorageNamespace, when set, is the one namespace that holds all records (OLMv1
	// keeps them in its system namespace). When empty, records live in the namespace
	// being looked at.
	StorageNamespace string
	// Namespace is the namespace looked at (kubectl's -n, or the context's): as in
	// helm, the release namespace, where the resources live. Listings narrow to
	// the releases whose resources live in it, unless AllNamespaces is set;
	// without StorageNamespace their records are looked for in every namespace
	// the user may list, else in Namespace itself. With StorageNamespace set,
	// Connect sets AllNamespaces unless -n was given.
	Namespace string
	// AllNamespaces looks at every namespace (-A).
	AllNamespaces bool
	// FallbackNamespaces are looked at, besides Namespace, when AllNamespaces is set
	// and listing across all namespaces is forbidden (--namespaces).
	FallbackNamespaces []string
	// Driver is the chunked driver's configuration.
	Driver storage.ChunkedSecretsConfig
	// Drivers are the stores read (DriverX values, see ParseDrivers). Nil reads
	// the chunked store alone, as a library caller of the chunked driver expects;
	// the CLI and the TUI read every store unless --driver or HELM_DRIVER narrow.
	Drivers []string
	// DriversFrom says what narrowed Drivers to fewer than every store
	// ("--driver", "HELM_DRIVER=secret", "--owner"), for messages; "" when
	// nothing did.
	DriversFrom string
	// ReadOnly refuses every mutating operation. The connection enforces it too; see
	// ReadOnlyTransport.
	ReadOnly bool
	// DetailsCacheBytes bounds the decoded revisions kept for reuse, by decoded
	// size: DefaultDetailsCacheBytes when zero, none when negative.
	DetailsCacheBytes int64
	// Now returns the current time; nil means time.Now. Ages are measured from it:
	// which unreferenced chunks are old enough to be leftovers, and how long a
	// release has been stuck.
	Now func() time.Time
	// StuckAfter is how long a revision may stay pending (or uninstalling)
	// before it counts as stuck rather than in progress: DefaultStuckAfter when
	// zero. A rollback over a latest revision pending for less is refused as an
	// operation in flight.
	StuckAfter time.Duration

	// Context is the kube context given with --context, when it is not the
	// kubeconfig's current one; Profile the --profile in use. Commands the tool
	// suggests carry them (see Suggest).
	Context string
	Profile string
	// Demo is set on the demo's in-memory clusters: suggested commands carry
	// --demo.
	Demo bool
	// RequestTimeout is --request-timeout: how long one read waits for the API
	// server (DefaultRequestTimeout unless given; 0 for no limit). Connect puts
	// it on the connection; it is here for the messages that name it.
	RequestTimeout time.Duration
	// Server is the API server's address ("" on the demo's clusters).
	Server string
}

// DefaultStuckAfter is Config.StuckAfter's default.
const DefaultStuckAfter = 5 * time.Minute

// listNamespace returns the namespace to list index Secrets in: the storage
// namespace, or the one looked at, or "" for all.
func (cfg Config) listNamespace() string {
	switch {
	case cfg.StorageNamespace != "":
		return cfg.StorageNamespace
	case cfg.AllNamespaces:
		return metav1.NamespaceAll
	default:
		return cfg.Namespace
	}
}

// storageNamespaceFor returns where the records of a release looked up in namespace
// ns live.
func (cfg Config) storageNamespaceFor(ns string) string {
	if cfg.StorageNamespace != "" {
		return cfg.StorageNamespace
	}
	if ns == "" {
		return cfg.Namespace
	}
	return ns
}

// indexSelector selects the index Secrets of the configured owner that carry
// the extra labels too.
func (cfg Config) indexSelector(extra labels.Set) labels.Selector {
	sel := labels.Set{storage.LabelOwner: cfg.Owner, storage.LabelType: storage.TypeIndex}
	for k, v := range extra {
		sel[k] = v
	}
	return labels.SelectorFromSet(sel)
}

// inView reports whether a release whose latest revision is r belongs to the
// namespace looked at. One whose release namespace is not known yet belongs to the
// namespace that holds its records, or, with a storage namespace, to any.
func (cfg Config) inView(r RevisionRow) bool {
	if ns := r.Summary.Namespace; r.Known && ns != "" {
		return ns == cfg.Namespace
	}
	return cfg.StorageNamespace != "" || r.StorageNamespace == cfg.Namespace
}

// storeNamespaceFor returns where store d keeps the records of a release looked
// up in namespace ns: Helm's own drivers always keep them beside the release.
func (cfg Config) storeNamespaceFor(d, ns string) string {
	if d == DriverChunked {
		return cfg.storageNamespaceFor(ns)
	}
	if ns == "" {
		return cfg.Namespace
	}
	return ns
}

// checkWritable refuses what under --read-only.
func (cfg Config) checkWritable(what string) error {
	if cfg.ReadOnly {
		return ReadOnlyError(what)
	}
	return nil
}

// drivers returns the stores the configuration reads.
func (cfg Config) drivers() []string {
	if len(cfg.Drivers) == 0 {
		return []string{DriverChunked}
	}
	return cfg.Drivers
}

// fallbackNamespaces are the namespaces a listing across all namespaces falls back
// to when that is forbidden: the context's namespace and those given with
// --namespaces, without repeats.
func (cfg Config) fallbackNamespaces() []string {
	seen := map[string]bool{}
	var out []string
	for _, ns := range append([]string{cfg.Namespace}, cfg.FallbackNamespaces...) {
		if ns != "" && !seen[ns] {
			seen[ns] = true
			out = append(out, ns)
		}
	}
	return out
}

// listingSelector selects, with the extra labels, the index Secrets of the
// owner and their pending indexes: one list finds both.
func (cfg Config) listingSelector(extra labels.Set) labels.Selector {
	set := labels.Set{storage.LabelOwner: cfg.Owner}
	for k, v := range extra {
		set[k] = v
	}
	sel := labels.SelectorFromSet(set)
	if req, err := labels.NewRequirement(storage.LabelType, selection.In, []string{storage.TypeIndex, storage.TypePending}); err == nil {
		sel = sel.Add(*req)
	}
	return sel
}

// StorageNamespaceFor returns where store d keeps the records of a release
// looked up in namespace ns.
func (cfg Config) StorageNamespaceFor(d, ns string) string { return cfg.storeNamespaceFor(d, ns) }

func (cfg Config) notFound(name, ns string) error {
	where := "namespace " + strconv.Quote(ns)
	if ns == "" {
		where = "any namespace"
	}
	narrowed := ""
	if n := cfg.NarrowedNote(); n != "" {
		narrowed = " (" + n + ")"
	}
	return fmt.Errorf("%w: no release %q with owner %q in %s%s; if it was stored by another tool, try --owner, --storage-namespace or --profile olmv1",
		ErrNotFound, name, cfg.Owner, where, narrowed)
}

// NarrowedNote says, when the stores read were narrowed by a flag or by
// HELM_DRIVER, which were read and how to read them all; "" otherwise. A release
// not found may be in a store that was not read.
func (cfg Config) NarrowedNote() string {
	if cfg.DriversFrom == "" || len(cfg.drivers()) == len(AllDrivers) {
		return ""
	}
	return fmt.Sprintf("only the %s store%s read, as %s says; --driver %s reads them all",
		strings.Join(cfg.drivers(), " and "), map[bool]string{true: " was", false: "s were"}[len(cfg.drivers()) == 1],
		cfg.DriversFrom, strings.Join(AllDrivers, ","))
}
