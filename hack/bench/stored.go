package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage"
)

// What the fleet takes on the server, counted from the Secrets themselves.

// footprint is what one copy of a set of releases takes.
type footprint struct {
	Secrets int
	// Data is the sum of the Secrets' data values: what counts against the 1 MiB
	// limit.
	Data int64
	// Object is the size of the Secrets as the API server stores them in etcd
	// (protobuf), metadata and annotations included.
	Object int64
}

func (f *footprint) add(s *corev1.Secret) {
	f.Secrets++
	for _, v := range s.Data {
		f.Data += int64(len(v))
	}
	f.Object += int64(s.Size())
}

// storedResult compares the two copies of the releases both can hold.
type storedResult struct {
	Releases        int // releases in both copies
	ByClass         map[string]*[2]footprint
	Total           [2]footprint // chunkview, Helm
	LargeOnly       footprint    // chunkview's copy of the releases Helm cannot hold
	LargeReleases   int
	HelmMaxGzip     int
	ChunkviewMax    string
	ProbeHelmOK     int // gzip bytes of a release Helm stored
	ProbeHelmFail   int // gzip bytes of a release Helm refused
	ProbeHelmErr    string
	ProbeChunkview  int // gzip bytes of a release chunkview stored and read back
	ProbeChunkviewN int // its chunks
}

// measureStored walks every Secret of both copies, a page at a time.
func measureStored(ctx context.Context, cs kubernetes.Interface, f *fleet) (*storedResult, error) {
	class := map[string]string{}
	fitsHelm := map[string]bool{}
	for _, s := range f.Specs {
		class[s.Name] = s.Class
		fitsHelm[s.Name] = s.fitsHelm()
	}
	res := &storedResult{ByClass: map[string]*[2]footprint{}}
	for _, c := range []string{classSmall, classMedium, classLarge} {
		res.ByClass[c] = &[2]footprint{}
	}
	each := func(ns, sel string, fn func(*corev1.Secret)) error {
		opts := metav1.ListOptions{LabelSelector: sel, Limit: 50}
		for {
			l, err := cs.CoreV1().Secrets(ns).List(ctx, opts)
			if err != nil {
				return err
			}
			for i := range l.Items {
				fn(&l.Items[i])
			}
			if l.Continue == "" {
				return nil
			}
			opts.Continue = l.Continue
		}
	}
	for i := range f.Shape.Namespaces {
		fmt.Fprintf(os.Stderr, "storage: counting namespace %d of %d\n", i+1, f.Shape.Namespaces)
		err := each(fmt.Sprintf(fleetNSFmt, i), labels.SelectorFromSet(labels.Set{storage.LabelOwner: fleetOwner}).String(), func(s *corev1.Secret) {
			name, _, _ := storage.ParseKey(s.Labels[storage.LabelKey])
			if !fitsHelm[name] {
				res.LargeOnly.add(s)
				return
			}
			res.Total[0].add(s)
			res.ByClass[class[name]][0].add(s)
		})
		if err != nil {
			return nil, err
		}
		err = each(fmt.Sprintf(helmNSFmt, i), "owner=helm", func(s *corev1.Secret) {
			name := s.Labels["name"]
			res.Total[1].add(s)
			res.ByClass[class[name]][1].add(s)
		})
		if err != nil {
			return nil, err
		}
	}
	for _, s := range f.Specs {
		if s.fitsHelm() {
			res.Releases++
		} else {
			res.LargeReleases++
		}
	}
	res.HelmMaxGzip = storage.MaxHelmSecretGzipBytes
	return res, nil
}

// probeLimits stores releases at the edge of what each driver holds with its
// defaults: Helm's Secrets driver just under and just over its limit, chunkview's
// driver a release of 16 MB of gzip, read back.
func probeLimits(ctx context.Context, cs kubernetes.Interface, res *storedResult) error {
	const ns = "bench-limits"
	if err := ensureNamespace(ctx, cs, ns); err != nil {
		return err
	}
	defer func() {
		_ = cs.CoreV1().Secrets(ns).DeleteCollection(context.WithoutCancel(ctx), metav1.DeleteOptions{}, metav1.ListOptions{})
	}()
	helm := driver.NewSecrets(cs.CoreV1().Secrets(ns))
	for i, target := range []int{storage.MaxHelmSecretGzipBytes - 8<<10, storage.MaxHelmSecretGzipBytes + 8<<10} {
		s := relSpec{Index: 9100 + i, Name: fmt.Sprintf("edge-%d", i), Class: classMedium, GZ: target, Chart: "cert-bundle", Comps: 4, Seed: 0xed6e + uint64(i)}
		if err := calibrate(&s); err != nil {
			return err
		}
		rls := buildRelease(s, 1, ns)
		rls.Labels = nil
		gz, err := storage.HelmSecretBytes(rls)
		if err != nil {
			return err
		}
		gzLen := gz / 4 * 3
		fmt.Fprintf(os.Stderr, "storage: Helm's driver, a release of about %d gzip bytes\n", gzLen)
		err = helm.Create(storage.RecordKey(rls.Name, 1), rls)
		switch {
		case err == nil:
			res.ProbeHelmOK = max(res.ProbeHelmOK, gzLen)
		default:
			res.ProbeHelmFail, res.ProbeHelmErr = gzLen, firstLine(err.Error())
		}
	}
	s := relSpec{Index: 9200, Name: "edge-chunkview", Class: classLarge, GZ: 16_000_000, Chart: "platform-base", Comps: 50, Seed: 0xed6f}
	if err := calibrate(&s); err != nil {
		return err
	}
	rls := buildRelease(s, 1, ns)
	fmt.Fprintf(os.Stderr, "storage: chunkview's driver, a release of about %d gzip bytes\n", s.GZ)
	cv := storage.NewChunkedSecrets(cs.CoreV1().Secrets(ns), "bench-limits", storage.ChunkedSecretsConfig{})
	k := storage.RecordKey(rls.Name, 1)
	if err := cv.Create(k, rls); err != nil {
		return fmt.Errorf("chunkview's driver could not store a 16 MB release: %w", err)
	}
	got, err := cv.Get(k)
	if err != nil || got.Manifest != rls.Manifest {
		return fmt.Errorf("chunkview's driver could not read its 16 MB release back: %v", err)
	}
	gz, _, _ := storage.EncodePayload(rls)
	res.ProbeChunkview, res.ProbeChunkviewN = len(gz), len(storage.Split(gz, storage.DefaultChunkSize))
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 160 {
		s = s[:160] + "..."
	}
	return s
}
