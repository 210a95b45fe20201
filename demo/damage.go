package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
	helmtime "helm.sh/helm/v3/pkg/time"

	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/storage"
)

// damage breaks one revision's record: it deletes one of its chunk Secrets, or
// replaces one with a Secret of the same name, labels and owner whose bytes no
// longer match the hash in the name (a chunk is immutable, so it is deleted and
// created again, as a bad restore would do).
func damage(ctx context.Context, c *fakeapi.Cluster, r *SampleRelease, revision int, d Damage) error {
	if revision < 1 || revision > len(r.Revisions) {
		return fmt.Errorf("damage %s/%s revision %d: no such sample", r.Namespace, r.Name, revision)
	}
	rev := &r.Revisions[revision-1]
	secrets := c.Clientset().CoreV1().Secrets(r.Namespace)
	idx, err := secrets.Get(ctx, rev.Key, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("damage %s: %w", rev.Key, err)
	}
	names, err := storage.ParseExtraChunks(rev.Key, idx.Data[storage.DataExtraChunks])
	if err != nil || len(names) == 0 {
		return fmt.Errorf("damage %s: want a record with chunks, it has %d (%v)", rev.Key, len(names), err)
	}
	victim := names[len(names)/2]
	chunk, err := secrets.Get(ctx, victim, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("damage %s: %w", victim, err)
	}
	if err := secrets.Delete(ctx, victim, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &chunk.UID}}); err != nil {
		return fmt.Errorf("damage %s: %w", victim, err)
	}
	if d == CorruptChunk {
		data := bytes.Clone(chunk.Data[storage.DataChunk])
		for i := len(data) / 2; i < len(data)/2+16 && i < len(data); i++ {
			data[i] ^= 0x5a
		}
		bad := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{
				Name: chunk.Name, Labels: chunk.Labels, Annotations: chunk.Annotations,
				OwnerReferences: chunk.OwnerReferences,
			},
			Type:      chunk.Type,
			Immutable: ptr.To(true),
			Data:      map[string][]byte{storage.DataChunk: data},
		}
		if _, err := secrets.Create(ctx, bad, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("damage %s: recreate: %w", victim, err)
		}
	}
	rev.Damage, rev.DamagedSecret = d, victim
	// The damage is old news, not a write in progress: the record was last written
	// when the revision was deployed, long before the chunk went (see
	// kube.WritingWindow).
	if rev.Release != nil && rev.Release.Info != nil {
		idx, err := secrets.Get(ctx, rev.Key, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("damage %s: %w", rev.Key, err)
		}
		at := strconv.FormatInt(rev.Release.Info.LastDeployed.Unix(), 10)
		idx.Labels[storage.LabelCreatedAt], idx.Labels[storage.LabelModifiedAt] = at, at
		if _, err := secrets.Update(ctx, idx, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("damage %s: date the index: %w", rev.Key, err)
		}
	}
	return nil
}

// orphanKey is the record whose write was interrupted: cert-manager's upgrade to
// 1.16.0, revision 4, which never got its index.
var orphanKey = storage.RecordKey("cert-manager", 4)

// leaveOrphan writes the second slice of cert-manager's revision 4 as a chunk
// Secret and nothing else, two days before now: the trace of an upgrade whose
// index was never written. Its creationTimestamp is that old too, so verify counts
// it a leftover rather than a write in flight.
func leaveOrphan(ctx context.Context, c *fakeapi.Cluster, cfg storage.ChunkedSecretsConfig, now time.Time) (*Orphan, error) {
	s := samples()[slices.IndexFunc(samples(), func(s sample) bool { return s.name == "cert-manager" })]
	h := &history{s: s, now: now, charts: map[string]*chart.Chart{}}
	st := step{op: opUpgrade, chart: "1.16.0", values: "installCRDs: true\nreplicaCount: 2\n"}
	rls, err := h.render(st, 4)
	if err != nil {
		return nil, fmt.Errorf("orphan: %w", err)
	}
	when := now.Add(-2*day - 3*hour)
	rls.Info.FirstDeployed, rls.Info.LastDeployed = h.at(75*day), helmtime.Time{Time: when.UTC()}
	rls.Info.Status, rls.Info.Description = release.StatusPendingUpgrade, "Preparing upgrade"
	gz, _, err := storage.EncodePayload(rls)
	if err != nil {
		return nil, fmt.Errorf("orphan: %w", err)
	}
	parts := storage.Split(gz, cfg.ChunkSize)
	if len(parts) < 2 {
		return nil, errors.New("orphan: cert-manager 1.16.0 fits one slice; raise its size")
	}
	o := &Orphan{Namespace: OLMNamespace, Owner: OLMOwner, Key: orphanKey, Name: storage.ChunkName(orphanKey, parts[1])}
	chunk := storage.ChunkSecret(o.Owner, o.Key, parts[1], when, nil)
	clock := c.Clock()
	c.SetClock(func() time.Time { return when })
	defer func() {
		c.SetClock(clock)
	}()
	if _, err := c.Clientset().CoreV1().Secrets(o.Namespace).Create(ctx, chunk, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("orphan %s: %w", o.Name, err)
	}
	return o, nil
}
