package main

import (
	"context"
	"fmt"
	"runtime"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/internal/adoption"
	"github.com/chunkview/chunkview/storage"
)

// decodedCost is what the revisions of one release cost decoded, against what
// they take stored: the figure a cache of decoded releases is sized by.
type decodedCost struct {
	Release     string
	Revisions   int
	StoredBytes int64 // gzip, as the driver stores it
	JSONBytes   int64 // the JSON the gzip holds
	HeapBytes   int64 // live heap the decoded releases hold, after a GC
	Chunks      int   // of the largest revision
}

func (d decodedCost) heapPerStored() float64 { return float64(d.HeapBytes) / float64(d.StoredBytes) }
func (d decodedCost) jsonPerStored() float64 { return float64(d.JSONBytes) / float64(d.StoredBytes) }

// measureDecodedStored reads every revision of the fleet's first 6-chunk
// extension (or its largest) with chunkview's driver and keeps them, and returns
// the live heap they hold (the heap after a GC with the releases held, less the
// heap after a GC before reading) against what they take stored, from the
// summaries of their index Secrets.
func measureDecodedStored(ctx context.Context, bc *benchCluster, exts []*extension) (*decodedCost, error) {
	var e *extension
	for _, x := range exts {
		if e == nil || x.chunks == 6 && e.chunks != 6 || x.chunks > e.chunks && e.chunks != 6 {
			e = x
		}
	}
	secrets := bc.Client.CoreV1().Secrets(olmSystemNamespace)
	l, err := secrets.List(ctx, metav1.ListOptions{LabelSelector: storage.LabelName + "=" + e.Name + "," + storage.IndexSelector(adoption.Owner).String()})
	if err != nil {
		return nil, err
	}
	d := &decodedCost{Release: e.Name, Revisions: len(l.Items)}
	for i := range l.Items {
		s, _ := storage.SummaryFromMeta(&l.Items[i])
		d.StoredBytes += s.StoredBytes
		d.JSONBytes += s.DecodedBytes
		d.Chunks = max(d.Chunks, s.Chunks)
	}
	drv := storage.NewChunkedSecrets(secrets, adoption.Owner, adoption.OLMConfig())
	before := liveHeap()
	rs, err := drv.Query(map[string]string{"name": e.Name, "owner": adoption.Owner})
	if err != nil {
		return nil, err
	}
	d.HeapBytes = int64(liveHeap()) - int64(before)
	runtime.KeepAlive(rs)
	if len(rs) != d.Revisions {
		return nil, fmt.Errorf("decoded %d revisions of %s, want %d", len(rs), e.Name, d.Revisions)
	}
	return d, nil
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
