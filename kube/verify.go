package kube

import (
	"context"
	"errors"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/chunkview/chunkview/storage"
)

// Verify checks the records in view, or those of one release.
//
// When listing across all namespaces is forbidden, it checks the namespaces the
// user may read and returns their reports with a *PartialError (ErrPartial) that
// names the rest.
func (ch *Checker) Verify(ctx context.Context, name string, decode bool) ([]NamespaceReport, error) {
	return ch.verifyStores(ctx, name, decode, nil, func() ([]NamespaceReport, error) {
		return ch.verifyEach(ctx, storage.VerifyOptions{Release: name, Decode: decode})
	})
}

// VerifyRelease checks the records of release name, looked up in namespace ns (as
// History looks it up): the namespace a caller located the release's records in.
func (ch *Checker) VerifyRelease(ctx context.Context, ns, name string, decode bool) ([]NamespaceReport, error) {
	return ch.verifyStores(ctx, name, decode, []string{ch.c.cfg.storeNamespaceFor(DriverSecret, ns)}, func() ([]NamespaceReport, error) {
		sns := ch.c.cfg.storageNamespaceFor(ns)
		rep, err := storage.Verify(ctx, ch.c.cs.CoreV1().Secrets(sns), ch.c.cfg.Owner,
			storage.VerifyOptions{Release: name, Decode: decode, Config: ch.c.cfg.Driver, Now: ch.c.Now()})
		if err != nil {
			return nil, Explain(err, "list", "secrets", sns)
		}
		return []NamespaceReport{{Namespace: sns, Driver: DriverChunked, Report: rep}}, nil
	})
}

// verifyEach runs storage.Verify with opts in each storage namespace in view. With
// -n, the namespace looked at is a release namespace, as in helm: the records of
// the releases in it are checked wherever they are stored (see verifyInView).
func (ch *Checker) verifyEach(ctx context.Context, opts storage.VerifyOptions) ([]NamespaceReport, error) {
	opts.Config, opts.Now = ch.c.cfg.Driver, ch.c.Now()
	if !ch.c.cfg.AllNamespaces && ch.c.cfg.Namespace != "" {
		return ch.verifyInView(ctx, opts)
	}
	var out []NamespaceReport
	err := ch.eachStorageNamespace(ctx, func(ns string) error {
		rep, err := storage.Verify(ctx, ch.c.cs.CoreV1().Secrets(ns), ch.c.cfg.Owner, opts)
		if err != nil {
			return Explain(err, "list", "secrets", ns)
		}
		out = append(out, NamespaceReport{Namespace: ns, Driver: DriverChunked, Report: rep})
		return nil
	})
	return out, err
}

// eachStorageNamespace runs fn in each storage namespace in view, stopping at the
// first error. When listing across all namespaces is forbidden, it runs fn in the
// namespaces the user may read instead (the context's and --namespaces), skipping
// those fn finds forbidden, and returns a *PartialError that names what was left
// out; it returns the cause when none could be read.
func (ch *Checker) eachStorageNamespace(ctx context.Context, fn func(ns string) error) error {
	nss, err := ch.storageNamespaces(ctx)
	if errors.Is(err, ErrForbidden) && ch.c.cfg.listNamespace() == "" {
		return ch.c.cfg.eachReadable(err, fn)
	}
	if err != nil {
		return err
	}
	for _, ns := range nss {
		if err := fn(ns); err != nil {
			return err
		}
	}
	return nil
}

// storageNamespaces returns the namespaces that hold records in view: the one
// looked at, or with -A those holding index or chunk Secrets of the owner. Chunks
// count on their own, since the leftovers of an interrupted delete of a namespace's
// last release are all that is left of it. Listing across all namespaces may be
// forbidden: the error then wraps ErrForbidden.
func (ch *Checker) storageNamespaces(ctx context.Context) ([]string, error) {
	ns := ch.c.cfg.listNamespace()
	if ns != "" {
		return []string{ns}, nil
	}
	items, err := secretMeta{ch.c.md}.list(ctx, metav1.NamespaceAll, labels.SelectorFromSet(labels.Set{storage.LabelOwner: ch.c.cfg.Owner}))
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, m := range items {
		if !seen[m.Namespace] {
			seen[m.Namespace] = true
			out = append(out, m.Namespace)
		}
	}
	sort.Strings(out)
	return out, nil
}

// verifyInView checks the records in the namespace looked at, as before -n meant
// the release namespace, and those of the releases whose resources live in it
// wherever else they are stored: a superset, so that nothing stored in the
// namespace goes unchecked, and nothing of its releases either. In a storage
// namespace of its own (--storage-namespace, a profile), only the records of the
// namespace's releases are checked.
func (ch *Checker) verifyInView(ctx context.Context, opts storage.VerifyOptions) ([]NamespaceReport, error) {
	home := ""
	if ch.c.cfg.storageNamespaceFor("") == ch.c.cfg.Namespace {
		home = ch.c.cfg.Namespace
	}
	byNS, err := ch.releasesByStorage(ctx, opts.Release, home)
	// A listing that could read only some stores or namespaces still says
	// where the releases it read are stored: those are verified, and what it
	// could not read is said with the report.
	partial := err
	if err != nil && !errors.Is(err, ErrPartial) {
		return nil, err
	}
	if home != "" {
		byNS[home] = nil
	}
	nss := make([]string, 0, len(byNS))
	for ns := range byNS {
		nss = append(nss, ns)
	}
	sort.Strings(nss)
	out := make([]NamespaceReport, 0, len(nss))
	for _, ns := range nss {
		o := opts
		if ns != home {
			o.Release, o.Releases = "", append([]string{}, byNS[ns]...)
		}
		rep, err := storage.Verify(ctx, ch.c.cs.CoreV1().Secrets(ns), ch.c.cfg.Owner, o)
		if err != nil {
			return out, Explain(err, "list", "secrets", ns)
		}
		out = append(out, NamespaceReport{Namespace: ns, Driver: DriverChunked, Report: rep})
	}
	return out, partial
}

// releasesByStorage returns the names of the releases in view (only release name
// when set) whose records are stored outside namespace home, by the storage
// namespace that holds them. Records written without chunkview's summary (by
// helm-operator-plugins' driver, say) do not say where their release is deployed:
// it decodes the latest revision of each to know. One that cannot be decoded
// belongs where its records are, as in Releases.
func (ch *Checker) releasesByStorage(ctx context.Context, name, home string) (map[string][]string, error) {
	rows, err := ch.c.releases(ctx, name, false, func(r RevisionRow) bool {
		return r.StorageNamespace != home && (name == "" || r.Name == name) && (!r.Known || ch.c.cfg.inView(r))
	})
	if err != nil && !errors.Is(err, ErrPartial) {
		return nil, err
	}
	partial := err // the rows of what could be read come with it
	var todo []*RevisionRow
	for i := range rows {
		if !rows[i].Latest.Known {
			todo = append(todo, &rows[i].Latest)
		}
	}
	_ = ch.c.FillDetails(ctx, todo) // failures leave a row unknown: see above
	out := map[string][]string{}
	for _, rr := range rows {
		r := rr.Latest
		if !ch.c.cfg.inView(r) {
			continue
		}
		out[r.StorageNamespace] = append(out[r.StorageNamespace], r.Name)
	}
	return out, partial
}
