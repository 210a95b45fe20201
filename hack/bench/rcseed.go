package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/internal/adoption"
	"github.com/chunkview/chunkview/internal/testcluster"
	"github.com/chunkview/chunkview/storage"
)

// prepareOLM serves OLMv1's ClusterExtension on the cluster, creates the system
// namespace and one ClusterExtension per extension, and gives each extension its
// ClusterExtension's controller reference.
func prepareOLM(ctx context.Context, bc *benchCluster, exts []*extension) error {
	opts := envtest.CRDInstallOptions{CRDs: testcluster.OLMv1CRDs(false), MaxTime: time.Minute, PollInterval: 100 * time.Millisecond}
	if _, err := envtest.InstallCRDs(bc.Config, opts); err != nil {
		return fmt.Errorf("install OLMv1's CRDs: %w", err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: olmSystemNamespace}}
	if _, err := bc.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	dyn, err := dynamic.NewForConfig(bc.Config)
	if err != nil {
		return err
	}
	for _, e := range exts {
		u, err := dyn.Resource(testcluster.ClusterExtensions).Create(ctx, adoption.ClusterExtension(e.Name, e.Namespace), metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("create ClusterExtension %s: %w", e.Name, err)
		}
		ref := metav1.NewControllerRef(u, adoption.ClusterExtensionKind)
		e.Owner = *ref
		e.base = nil // rendered with the owner from now on
		e.obj = u
	}
	return nil
}

// seedRevisions writes revisions from..to of every extension as an operator's
// installs and upgrades leave them, through chunkview's driver wired as OLMv1 wires
// it: each earlier revision superseded, the last deployed. Revision from-1, when
// there is one, is marked superseded first.
func seedRevisions(ctx context.Context, bc *benchCluster, exts []*extension, from, to int) error {
	secrets := bc.Client.CoreV1().Secrets(olmSystemNamespace)
	mapper := adoption.DriverMapper(secrets, adoption.Chunkview(adoption.Owner, adoption.OLMConfig()))
	// The large extensions first, so that two writers end together.
	order := append([]*extension(nil), exts...)
	sort.SliceStable(order, func(i, j int) bool { return order[i].Size > order[j].Size })
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(2)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, e := range order {
		g.Go(func() error {
			d, err := mapper(gctx, e.obj, nil)
			if err != nil {
				return err
			}
			if from > 1 {
				if err := supersede(d, e.Name, from-1); err != nil {
					return err
				}
			}
			for rev := from; rev <= to; rev++ {
				status := release.StatusSuperseded
				if rev == to {
					status = release.StatusDeployed
				}
				rls, err := e.releaseAt(rev, status, at.Add(time.Duration(rev)*time.Hour))
				if err != nil {
					return err
				}
				if err := d.Create(storage.RecordKey(e.Name, rev), rls); err != nil {
					return fmt.Errorf("seed %s revision %d: %w", e.Name, rev, err)
				}
			}
			fmt.Fprintf(os.Stderr, "seed: %s revisions %d..%d\n", e.Name, from, to)
			return nil
		})
	}
	return g.Wait()
}

// supersede marks revision rev of release name superseded, as Helm's upgrade does.
func supersede(d driver.Driver, name string, rev int) error {
	key := storage.RecordKey(name, rev)
	rls, err := d.Get(key)
	if err != nil {
		return err
	}
	rls.Info.Status = release.StatusSuperseded
	return d.Update(key, rls)
}

// writeFleetFile writes, into dir, the chart of every extension at revision rev
// (what the reconcile upgrades to: the deployed bundle) and the fleet file that
// tells a child about them.
func writeFleetFile(dir string, exts []*extension, rev int) (string, error) {
	f := rcFleetFile{Namespace: olmSystemNamespace, Revisions: rev}
	for _, e := range exts {
		ch, _, err := e.chartAt(rev)
		if err != nil {
			return "", err
		}
		b, err := json.Marshal(ch)
		if err != nil {
			return "", err
		}
		path := filepath.Join(dir, fmt.Sprintf("chart-%s-%d.json", e.Name, rev))
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return "", err
		}
		f.Exts = append(f.Exts, rcExt{Name: e.Name, Namespace: e.Namespace, UID: string(e.Owner.UID), ChartFile: path})
	}
	b, err := json.Marshal(f)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, fmt.Sprintf("fleet-%d.json", rev))
	return path, os.WriteFile(path, b, 0o600)
}

// storedSizes sums, by class, the stored (gzip) and decoded (JSON) bytes of the
// fleet's records, from the summaries chunkview's index Secrets carry.
func storedSizes(ctx context.Context, bc *benchCluster, exts []*extension) (map[string][2]int64, error) {
	l, err := bc.Client.CoreV1().Secrets(olmSystemNamespace).List(ctx, metav1.ListOptions{LabelSelector: storage.IndexSelector(adoption.Owner).String()})
	if err != nil {
		return nil, err
	}
	class := map[string]string{}
	for _, e := range exts {
		class[e.Name] = sizeClass(e)
	}
	out := map[string][2]int64{}
	for i := range l.Items {
		s, ok := storage.SummaryFromMeta(&l.Items[i])
		if !ok || s.StoredBytes == 0 {
			return nil, fmt.Errorf("index %s has no summary", l.Items[i].Name)
		}
		c := class[l.Items[i].Labels[storage.LabelName]]
		v := out[c]
		v[0] += s.StoredBytes
		v[1] += s.DecodedBytes
		out[c] = v
	}
	return out, nil
}

// sizeClass is "small" for the one-chunk extensions and "large" for the others.
func sizeClass(e *extension) string {
	if e.Class == "1 chunk" {
		return "small"
	}
	return "large"
}
