package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"

	"github.com/chunkview/chunkview/storage"
)

// Seeding: writing the fleet into a cluster, through both drivers and as bare
// index Secrets, and reading back what a seeded cluster holds.

func ensureNamespace(ctx context.Context, cs kubernetes.Interface, ns string) error {
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create namespace %s: %w", ns, err)
	}
	return nil
}

// seedStats is what seeding wrote.
type seedStats struct {
	Chunkview, Helm, Orig int   // revisions written by each driver
	GzipBytes             int64 // gzip bytes of the chunkview copy
	Elapsed               time.Duration
}

// seed writes the fleet with writers concurrent writers, showing progress on stderr.
func (f *fleet) seed(ctx context.Context, bc *benchCluster, writers int) (*seedStats, error) {
	cs := bc.Client
	for i := range f.Shape.Namespaces {
		nss := []string{fmt.Sprintf(fleetNSFmt, i)}
		if f.Shape.HelmCopy {
			nss = append(nss, fmt.Sprintf(helmNSFmt, i))
		}
		for _, ns := range nss {
			if err := ensureNamespace(ctx, cs, ns); err != nil {
				return nil, err
			}
		}
	}
	for _, ns := range []string{origNamespace, floorNamespace} {
		if err := ensureNamespace(ctx, cs, ns); err != nil {
			return nil, err
		}
	}
	m := f.marker()
	m["complete"] = "false"
	_ = cs.CoreV1().ConfigMaps("default").Delete(ctx, markerName, metav1.DeleteOptions{})
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: markerName}, Data: m}, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("write fleet marker: %w", err)
	}

	drivers := map[string]driver.Driver{}
	var mu sync.Mutex
	driverFor := func(kind, ns string) driver.Driver {
		mu.Lock()
		defer mu.Unlock()
		k := kind + "/" + ns
		if d, ok := drivers[k]; ok {
			return d
		}
		var d driver.Driver
		switch kind {
		case "chunkview":
			d = storage.NewChunkedSecrets(cs.CoreV1().Secrets(ns), fleetOwner, storage.ChunkedSecretsConfig{})
		case "helm":
			d = driver.NewSecrets(cs.CoreV1().Secrets(ns))
		case "orig":
			d = hopstorage.NewChunkedSecrets(cs.CoreV1().Secrets(ns), origOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: storage.DefaultChunkSize})
		}
		drivers[k] = d
		return d
	}

	type job struct {
		spec relSpec
		rev  int
		orig bool
	}
	var jobs []job
	origSet := map[int]bool{}
	for _, s := range f.Orig {
		origSet[s.Index] = true
	}
	// Large releases first, so that the slowest work does not come last.
	for _, class := range []string{classLarge, classMedium, classSmall} {
		for _, s := range f.Specs {
			if s.Class != class {
				continue
			}
			for rev := 1; rev <= revisions; rev++ {
				jobs = append(jobs, job{spec: s, rev: rev, orig: origSet[s.Index]})
			}
		}
	}
	total := len(jobs)
	var st seedStats
	var done, cvN, helmN, origN atomic.Int64
	start := time.Now()
	stop := make(chan struct{})
	progressDone := make(chan struct{})
	go func() {
		defer close(progressDone)
		t := time.NewTicker(2 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				d := done.Load()
				el := time.Since(start)
				eta := ""
				if d > 0 {
					eta = fmt.Sprintf(", about %s left", (time.Duration(float64(el) / float64(d) * float64(int64(total)-d))).Round(time.Second))
				}
				fmt.Fprintf(os.Stderr, "seed: %d/%d revisions, %s%s\n", d, total, el.Round(time.Second), eta)
			}
		}
	}()

	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(writers)
	for _, j := range jobs {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			key := storage.RecordKey(j.spec.Name, j.rev)
			rls := buildRelease(j.spec, j.rev, j.spec.fleetNS())
			if err := create(driverFor("chunkview", j.spec.fleetNS()), key, rls); err != nil {
				return fmt.Errorf("seed chunkview copy of %s: %w", key, err)
			}
			cvN.Add(1)
			if f.Shape.HelmCopy && j.spec.fitsHelm() {
				hr := *rls
				hr.Namespace = j.spec.helmNS()
				hr.Labels = nil
				if err := create(driverFor("helm", j.spec.helmNS()), key, &hr); err != nil {
					return fmt.Errorf("seed Helm copy of %s: %w", key, err)
				}
				helmN.Add(1)
			}
			if err := createBareIndex(gctx, cs, key, rls); err != nil {
				return fmt.Errorf("seed bare index of %s: %w", key, err)
			}
			if j.orig {
				or := *rls
				or.Namespace = origNamespace
				if err := create(driverFor("orig", origNamespace), key, &or); err != nil {
					return fmt.Errorf("seed original-driver copy of %s: %w", key, err)
				}
				origN.Add(1)
			}
			done.Add(1)
			return nil
		})
	}
	err := g.Wait()
	close(stop)
	<-progressDone
	if err != nil {
		return nil, err
	}
	st.Chunkview, st.Helm, st.Orig = int(cvN.Load()), int(helmN.Load()), int(origN.Load())
	if st.GzipBytes, err = storedGzipBytes(ctx, bc.Config); err != nil {
		return nil, err
	}
	st.Elapsed = time.Since(start)
	m["complete"] = "true"
	m["seconds"] = fmt.Sprintf("%.0f", st.Elapsed.Seconds())
	m["chunkview"], m["helm"], m["orig"], m["gzipBytes"] = fmt.Sprint(st.Chunkview), fmt.Sprint(st.Helm), fmt.Sprint(st.Orig), fmt.Sprint(st.GzipBytes)
	cm, err := cs.CoreV1().ConfigMaps("default").Get(ctx, markerName, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	cm.Data = m
	if _, err := cs.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		return nil, fmt.Errorf("complete fleet marker: %w", err)
	}
	fmt.Fprintf(os.Stderr, "seed: done, %d revisions in %s\n", total, st.Elapsed.Round(time.Second))
	return &st, nil
}

// storedGzipBytes adds up the gzip streams of the chunkview copy, from the sizes its
// index Secrets record.
func storedGzipBytes(ctx context.Context, cfg *rest.Config) (int64, error) {
	md, err := metadata.NewForConfig(cfg)
	if err != nil {
		return 0, err
	}
	var total int64
	opts := metav1.ListOptions{LabelSelector: storage.IndexSelector(fleetOwner).String(), Limit: 500}
	for {
		l, err := md.Resource(secretsGVR).List(ctx, opts)
		if err != nil {
			return 0, err
		}
		for i := range l.Items {
			if sum, ok := storage.SummaryFromMeta(&l.Items[i]); ok {
				total += sum.StoredBytes
			}
		}
		if l.Continue == "" {
			return total, nil
		}
		opts.Continue = l.Continue
	}
}

// createBareIndex writes an index Secret with the labels and data keys the original
// driver gives one, and a few bytes of data: what a listing of index metadata cannot
// do with less.
func createBareIndex(ctx context.Context, cs kubernetes.Interface, key string, rls *release.Release) error {
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: key, Labels: map[string]string{
			storage.LabelName: rls.Name, storage.LabelOwner: floorOwner, storage.LabelStatus: rls.Info.Status.String(),
			storage.LabelVersion: fmt.Sprint(rls.Version), storage.LabelKey: key, storage.LabelType: storage.TypeIndex,
			storage.LabelCreatedAt: fmt.Sprint(time.Now().Unix()),
		}},
		Type:      storage.SecretTypeIndex,
		Immutable: ptr.To(false),
		Data:      map[string][]byte{storage.DataChunk: []byte("-"), storage.DataExtraChunks: []byte("[]")},
	}
	_, err := cs.CoreV1().Secrets(floorNamespace).Create(ctx, s, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// create stores rls, accepting a record left by an earlier, interrupted seeding.
func create(d driver.Driver, key string, rls *release.Release) error {
	err := d.Create(key, rls)
	if err == driver.ErrReleaseExists {
		return nil
	}
	return err
}

// seedStatsFromMarker reads what an earlier seeding recorded.
func seedStatsFromMarker(ctx context.Context, cs kubernetes.Interface) *seedStats {
	cm, err := cs.CoreV1().ConfigMaps("default").Get(ctx, markerName, metav1.GetOptions{})
	if err != nil {
		return &seedStats{}
	}
	var st seedStats
	var secs float64
	fmt.Sscan(cm.Data["chunkview"], &st.Chunkview)
	fmt.Sscan(cm.Data["helm"], &st.Helm)
	fmt.Sscan(cm.Data["orig"], &st.Orig)
	fmt.Sscan(cm.Data["gzipBytes"], &st.GzipBytes)
	fmt.Sscan(cm.Data["seconds"], &secs)
	st.Elapsed = time.Duration(secs * float64(time.Second))
	return &st
}
