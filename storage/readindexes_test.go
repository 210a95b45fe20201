package storage_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/storage"
)

// TestReadIndexes: one list returns, by name, the index Secrets ReadIndex would
// return of the keys asked, and leaves out every key ReadIndex would refuse or not
// find (no such Secret, a pending index, a Secret of another type) and every
// Secret not asked for, even one whose key label names a key asked.
func TestReadIndexes(t *testing.T) {
	ctx := t.Context()
	_, secrets := newNamespace(t)
	orig := origDriver(secrets)
	for _, n := range []string{"a", "b", "liar", "stray", "unasked"} {
		if err := orig.Create(key(n, 1), testRelease(n, 1, release.StatusDeployed, 3*faultChunkSize)); err != nil {
			t.Fatal(err)
		}
	}
	relabel := func(name, k string) {
		t.Helper()
		s, err := secrets.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s.Labels[storage.LabelKey] = k
		if _, err := secrets.Update(ctx, s, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// liar's index says it is b's, an asked key: still liar's, as a GET by name
	// gives it. stray's names a key not asked: the list does not find it.
	// unasked's says it is a's: not asked, so not returned, under any key.
	relabel(key("liar", 1), key("b", 1))
	relabel(key("stray", 1), "elsewhere")
	relabel(key("unasked", 1), key("a", 1))
	plantPending(t, secrets, key("pending", 1), testRelease("pending", 1, release.StatusDeployed, 3*faultChunkSize))
	wrong := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: key("wrong", 1), Labels: map[string]string{
			storage.LabelOwner: testOwner, storage.LabelType: storage.TypeIndex, storage.LabelKey: key("wrong", 1)}},
		Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"chunk": []byte("not a record")},
	}
	if _, err := secrets.Create(ctx, wrong, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	fc := newFaultClient(secrets)
	d := storage.NewDriver(fc, testOwner, storage.ChunkedSecretsConfig{})
	asked := []string{key("a", 1), key("b", 1), key("liar", 1), key("stray", 1), key("pending", 1), key("wrong", 1), key("gone", 1),
		"sh.helm.release.v1." + strings.Repeat("x", 60) + ".v1"} // too long for a label value
	got, err := d.ReadIndexes(ctx, asked)
	if err != nil {
		t.Fatal(err)
	}
	if calls := fc.Calls(); len(calls) != 1 || !strings.HasPrefix(calls[0], "list") {
		t.Errorf("ReadIndexes sent %v, want one list", calls)
	}
	want := []string{key("a", 1), key("b", 1), key("liar", 1)}
	if len(got) != len(want) {
		t.Errorf("ReadIndexes returned %d Secrets, want %d (%v)", len(got), len(want), want)
	}
	for _, k := range want {
		s := got[k]
		if s == nil || s.Name != k {
			t.Errorf("ReadIndexes[%s]: %s, want the Secret of that name", k, nameOf(s))
			continue
		}
		byGet, err := d.ReadIndex(ctx, k)
		if err != nil || byGet.ResourceVersion != s.ResourceVersion || string(byGet.Data[storage.DataChunk]) != string(s.Data[storage.DataChunk]) {
			t.Errorf("ReadIndexes[%s] at %s differs from ReadIndex's (%v)", k, s.ResourceVersion, err)
		}
	}
	for _, k := range asked[3:] {
		if s, ok := got[k]; ok {
			t.Errorf("ReadIndexes returned %s for %s, which ReadIndex refuses or does not find", nameOf(s), k)
		}
	}
	if _, ok := got[key("unasked", 1)]; ok {
		t.Error("ReadIndexes returned a Secret not asked for")
	}

	// No key a label can hold: no request.
	fc.Reset()
	if got, err := d.ReadIndexes(ctx, asked[len(asked)-1:]); err != nil || len(got) != 0 || fc.Count() != 0 {
		t.Errorf("ReadIndexes of a key no label can hold: %d Secrets, %v, %d requests", len(got), err, fc.Count())
	}
	// A failed list is the caller's to handle.
	fc.failAt = 1
	if _, err := d.ReadIndexes(ctx, asked[:1]); err == nil {
		t.Error("ReadIndexes over a failing list: no error")
	}
}

// nameOf names s without its data, which holds a release.
func nameOf(s *corev1.Secret) string {
	if s == nil {
		return "none"
	}
	return s.Name
}
