package fakeapi

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/utils/ptr"
)

const ns = "apps"

// newTestCluster returns a cluster with namespaces apps and other and the Secrets
// client for apps.
func newTestCluster(t *testing.T) (*Cluster, corev1client.SecretInterface) {
	t.Helper()
	c := NewCluster()
	if err := c.Add(Namespace(ns), Namespace("other")); err != nil {
		t.Fatal(err)
	}
	return c, c.Clientset().CoreV1().Secrets(ns)
}

func secret(name string, data map[string][]byte, lbs map[string]string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbs}, Data: data}
}

func mustCreate(t *testing.T, sc corev1client.SecretInterface, s *corev1.Secret) *corev1.Secret {
	t.Helper()
	got, err := sc.Create(context.Background(), s, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s: %v", s.Name, err)
	}
	return got
}

func rvOf(t *testing.T, s *corev1.Secret) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(s.ResourceVersion, 10, 64)
	if err != nil {
		t.Fatalf("resourceVersion %q of %s is not a number: %v", s.ResourceVersion, s.Name, err)
	}
	return n
}

func TestCreateFillsSystemMetadata(t *testing.T) {
	c, sc := newTestCluster(t)
	now := time.Date(2025, 3, 14, 15, 9, 26, 535897932, time.UTC)
	c.SetClock(func() time.Time { return now })
	ctx := context.Background()

	a := mustCreate(t, sc, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "a", UID: "client-chosen", CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))},
		StringData: map[string]string{"k": "v"},
	})
	b := mustCreate(t, sc, secret("b", nil, nil))
	for _, s := range []*corev1.Secret{a, b} {
		if s.UID == "" || s.UID == "client-chosen" {
			t.Errorf("%s: uid %q, want one the server chose", s.Name, s.UID)
		}
		if !s.CreationTimestamp.Time.Equal(now.Truncate(time.Second)) {
			t.Errorf("%s: creationTimestamp %v, want %v", s.Name, s.CreationTimestamp, now.Truncate(time.Second))
		}
		if s.Namespace != ns || s.Type != corev1.SecretTypeOpaque {
			t.Errorf("%s: namespace %q type %q, want %q Opaque", s.Name, s.Namespace, s.Type, ns)
		}
	}
	if a.UID == b.UID {
		t.Errorf("two Secrets share uid %s", a.UID)
	}
	if rvOf(t, b) <= rvOf(t, a) {
		t.Errorf("resourceVersion %s of the later Secret is not above %s", b.ResourceVersion, a.ResourceVersion)
	}
	if string(a.Data["k"]) != "v" || a.StringData != nil {
		t.Errorf("stringData not merged into data: data %q stringData %q", a.Data, a.StringData)
	}
	got, err := sc.Get(ctx, "a", metav1.GetOptions{})
	if err != nil || got.UID != a.UID || got.ResourceVersion != a.ResourceVersion {
		t.Errorf("get a = %v (uid %s rv %s), want uid %s rv %s", err, got.UID, got.ResourceVersion, a.UID, a.ResourceVersion)
	}

	// Other resources share the counter: resourceVersions are cluster-wide.
	cm, err := c.Clientset().CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := strconv.ParseUint(cm.ResourceVersion, 10, 64); n <= rvOf(t, b) {
		t.Errorf("configmap resourceVersion %s not above the Secret's %s", cm.ResourceVersion, b.ResourceVersion)
	}

	refused := []struct {
		name  string
		in    *corev1.Secret
		check func(error) bool
		msg   string
	}{
		{"existing name", secret("a", nil, nil), apierrors.IsAlreadyExists, `secrets "a" already exists`},
		{"resourceVersion set", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "c", ResourceVersion: "5"}}, apierrors.IsInternalError, "resourceVersion should not be set on objects to be created"},
		{"invalid name", secret("Not_Valid", nil, nil), apierrors.IsInvalid, `Secret "Not_Valid" is invalid: metadata.name`},
		{"invalid key", secret("c", map[string][]byte{"a/b": nil}, nil), apierrors.IsInvalid, `data[a/b]: Invalid value`},
		{"tls without key", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Type: corev1.SecretTypeTLS, Data: map[string][]byte{"tls.crt": nil}}, apierrors.IsInvalid, "data[tls.key]: Required value"},
		{"other namespace in object", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "other"}}, apierrors.IsBadRequest, "does not match the namespace"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sc.Create(ctx, tc.in, metav1.CreateOptions{})
			if !tc.check(err) || !strings.Contains(fmt.Sprint(err), tc.msg) {
				t.Errorf("create = %v, want an error containing %q", err, tc.msg)
			}
		})
	}

	t.Run("missing namespace", func(t *testing.T) {
		_, err := c.Clientset().CoreV1().Secrets("nowhere").Create(ctx, secret("x", nil, nil), metav1.CreateOptions{})
		if !apierrors.IsNotFound(err) || !strings.Contains(err.Error(), `namespaces "nowhere" not found`) {
			t.Errorf("create in a missing namespace = %v, want NotFound", err)
		}
	})
	t.Run("generateName", func(t *testing.T) {
		s := mustCreate(t, sc, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{GenerateName: "gen-"}})
		if !strings.HasPrefix(s.Name, "gen-") || len(s.Name) != len("gen-")+5 {
			t.Errorf("generated name %q", s.Name)
		}
	})
	t.Run("dry run stores nothing", func(t *testing.T) {
		if _, err := sc.Create(ctx, secret("dry", nil, nil), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
			t.Fatal(err)
		}
		if _, err := sc.Get(ctx, "dry", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("get after dry-run create = %v, want NotFound", err)
		}
	})
}

func TestUpdateOptimisticConcurrency(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		mutate  func(s *corev1.Secret, stale *corev1.Secret)
		wantErr string // empty: success
	}{
		{"current resourceVersion", func(s, _ *corev1.Secret) {}, ""},
		{"empty resourceVersion is unconditional", func(s, _ *corev1.Secret) { s.ResourceVersion = "" }, ""},
		{"stale resourceVersion", func(s, stale *corev1.Secret) { s.ResourceVersion = stale.ResourceVersion },
			`Operation cannot be fulfilled on secrets "s": the object has been modified; please apply your changes to the latest version and try again`},
		{"other uid", func(s, _ *corev1.Secret) { s.UID = "00000000-0000-0000-0000-000000000000" },
			"Precondition failed: UID in precondition: 00000000-0000-0000-0000-000000000000"},
		{"empty uid keeps the stored one", func(s, _ *corev1.Secret) { s.UID = "" }, ""},
		{"changed creationTimestamp is ignored", func(s, _ *corev1.Secret) { s.CreationTimestamp = metav1.NewTime(time.Unix(0, 0)) }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, sc := newTestCluster(t)
			stale := mustCreate(t, sc, secret("s", map[string][]byte{"v": []byte("1")}, nil))
			cur := stale.DeepCopy()
			cur.Labels = map[string]string{"step": "1"}
			cur, err := sc.Update(ctx, cur, metav1.UpdateOptions{})
			if err != nil {
				t.Fatal(err)
			}

			in := cur.DeepCopy()
			in.Data["v"] = []byte("2")
			tc.mutate(in, stale)
			got, err := sc.Update(ctx, in, metav1.UpdateOptions{})
			if tc.wantErr != "" {
				if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("update = %v, want Conflict containing %q", err, tc.wantErr)
				}
				after, _ := sc.Get(ctx, "s", metav1.GetOptions{})
				if after.ResourceVersion != cur.ResourceVersion || string(after.Data["v"]) != "1" {
					t.Errorf("refused update changed the Secret: rv %s data %q", after.ResourceVersion, after.Data)
				}
				return
			}
			if err != nil {
				t.Fatalf("update: %v", err)
			}
			if rvOf(t, got) <= rvOf(t, cur) {
				t.Errorf("resourceVersion %s not bumped past %s", got.ResourceVersion, cur.ResourceVersion)
			}
			if got.UID != stale.UID || !got.CreationTimestamp.Equal(&stale.CreationTimestamp) {
				t.Errorf("uid %s created %v, want kept %s %v", got.UID, got.CreationTimestamp, stale.UID, stale.CreationTimestamp)
			}
			if string(got.Data["v"]) != "2" {
				t.Errorf("data %q not updated", got.Data)
			}
		})
	}

	t.Run("no-op update writes nothing", func(t *testing.T) {
		_, sc := newTestCluster(t)
		s := mustCreate(t, sc, secret("s", map[string][]byte{"v": []byte("1")}, nil))
		got, err := sc.Update(ctx, s.DeepCopy(), metav1.UpdateOptions{})
		if err != nil || got.ResourceVersion != s.ResourceVersion {
			t.Errorf("no-op update = %v, rv %s, want nil and rv %s kept", err, got.ResourceVersion, s.ResourceVersion)
		}
	})
	t.Run("missing Secret", func(t *testing.T) {
		_, sc := newTestCluster(t)
		if _, err := sc.Update(ctx, secret("nope", nil, nil), metav1.UpdateOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("update of a missing Secret = %v, want NotFound", err)
		}
	})
}

func TestSecretSizeLimit(t *testing.T) {
	const tooLong = `data: Too long: may not be more than 1048576 bytes`
	ctx := context.Background()
	tests := []struct {
		name    string
		data    map[string][]byte
		str     map[string]string
		wantErr bool
	}{
		{"exactly the limit", map[string][]byte{"chunk": make([]byte, 1_048_576)}, nil, false},
		{"one byte over", map[string][]byte{"chunk": make([]byte, 1_048_577)}, nil, true},
		{"limit split over keys", map[string][]byte{"a": make([]byte, 1_000_000), "b": make([]byte, 48_576)}, nil, false},
		{"over, split over keys", map[string][]byte{"a": make([]byte, 1_000_000), "b": make([]byte, 48_577)}, nil, true},
		{"stringData counts", map[string][]byte{"a": make([]byte, 1_048_576)}, map[string]string{"b": "x"}, true},
		{"stringData replaces a data key", map[string][]byte{"a": make([]byte, 1_048_576)}, map[string]string{"a": "x"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, sc := newTestCluster(t)
			_, err := sc.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "big"}, Data: tc.data, StringData: tc.str}, metav1.CreateOptions{})
			if !tc.wantErr {
				if err != nil {
					t.Fatalf("create = %v, want success", err)
				}
				return
			}
			if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tooLong) {
				t.Fatalf("create = %v, want Invalid containing %q", err, tooLong)
			}
			if want := `Secret "big" is invalid: ` + tooLong; err.Error() != want {
				t.Errorf("message %q, want %q", err.Error(), want)
			}
		})
	}

	t.Run("update over the limit", func(t *testing.T) {
		_, sc := newTestCluster(t)
		s := mustCreate(t, sc, secret("big", map[string][]byte{"a": make([]byte, 1_048_576)}, nil))
		s.Data["b"] = []byte{1}
		if _, err := sc.Update(ctx, s, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tooLong) {
			t.Errorf("update = %v, want Invalid %q", err, tooLong)
		}
		p := []byte(`{"data":{"b":"AQ=="}}`)
		if _, err := sc.Patch(ctx, "big", types.MergePatchType, p, metav1.PatchOptions{}); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tooLong) {
			t.Errorf("patch = %v, want Invalid %q", err, tooLong)
		}
	})
}

func TestImmutableSecret(t *testing.T) {
	const immutable = "field is immutable when `immutable` is set"
	ctx := context.Background()
	tests := []struct {
		name    string
		update  func(s *corev1.Secret)
		patch   string // merge patch, used instead of update when set
		wantErr string
	}{
		{name: "change data", update: func(s *corev1.Secret) { s.Data["chunk"] = []byte("other") }, wantErr: "data: Forbidden: " + immutable},
		{name: "add a key", update: func(s *corev1.Secret) { s.Data["more"] = []byte("x") }, wantErr: "data: Forbidden: " + immutable},
		{name: "via stringData", update: func(s *corev1.Secret) { s.StringData = map[string]string{"chunk": "other"} }, wantErr: "data: Forbidden: " + immutable},
		{name: "set immutable false", update: func(s *corev1.Secret) { s.Immutable = ptr.To(false) }, wantErr: "immutable: Forbidden: " + immutable},
		{name: "drop immutable", update: func(s *corev1.Secret) { s.Immutable = nil }, wantErr: "immutable: Forbidden: " + immutable},
		{name: "change type", update: func(s *corev1.Secret) { s.Type = "other/type" }, wantErr: "type: Invalid value: \"other/type\": field is immutable"},
		{name: "merge patch data", patch: `{"data":{"chunk":"b3RoZXI="}}`, wantErr: "data: Forbidden: " + immutable},
		{name: "labels", update: func(s *corev1.Secret) { s.Labels["extra"] = "yes" }},
		{name: "annotations", update: func(s *corev1.Secret) { s.Annotations = map[string]string{"a": "b"} }},
		{name: "ownerReferences", update: func(s *corev1.Secret) {
			s.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Secret", Name: "idx", UID: "1234", Controller: ptr.To(true)}}
		}},
		{name: "merge patch labels", patch: `{"metadata":{"labels":{"extra":"yes"}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, sc := newTestCluster(t)
			orig := mustCreate(t, sc, &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Name: "chunk", Labels: map[string]string{"type": "chunk"}},
				Type:       "operatorframework.io/chunk.v1",
				Immutable:  ptr.To(true),
				Data:       map[string][]byte{"chunk": []byte("slice")},
			})
			var (
				got *corev1.Secret
				err error
			)
			if tc.patch != "" {
				got, err = sc.Patch(ctx, "chunk", types.MergePatchType, []byte(tc.patch), metav1.PatchOptions{})
			} else {
				in := orig.DeepCopy()
				tc.update(in)
				got, err = sc.Update(ctx, in, metav1.UpdateOptions{})
			}
			if tc.wantErr != "" {
				if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want Invalid containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("metadata change refused: %v", err)
			}
			if rvOf(t, got) <= rvOf(t, orig) || string(got.Data["chunk"]) != "slice" {
				t.Errorf("rv %s (was %s), data %q", got.ResourceVersion, orig.ResourceVersion, got.Data)
			}
		})
	}
}

func TestPatch(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		pt      types.PatchType
		patch   func(rv string) string
		want    string // data["v"] after
		wantErr func(error) bool
	}{
		{"merge", types.MergePatchType, func(string) string { return `{"data":{"v":"Mg=="}}` }, "2", nil},
		{"strategic merge", types.StrategicMergePatchType, func(string) string { return `{"data":{"v":"Mg=="}}` }, "2", nil},
		{"json patch", types.JSONPatchType, func(string) string { return `[{"op":"replace","path":"/data/v","value":"Mg=="}]` }, "2", nil},
		{"apply", types.ApplyPatchType, func(string) string { return "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  v: Mg==\n" }, "2", nil},
		{"current resourceVersion in patch", types.MergePatchType, func(rv string) string { return `{"metadata":{"resourceVersion":"` + rv + `"},"data":{"v":"Mg=="}}` }, "2", nil},
		{"stale resourceVersion in patch", types.MergePatchType, func(string) string { return `{"metadata":{"resourceVersion":"1"},"data":{"v":"Mg=="}}` }, "", apierrors.IsConflict},
		{"failed json patch test", types.JSONPatchType, func(string) string { return `[{"op":"test","path":"/data/v","value":"Mg=="}]` }, "", func(err error) bool { return apierrors.ReasonForError(err) == metav1.StatusReasonInvalid }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, sc := newTestCluster(t)
			s := mustCreate(t, sc, secret("s", map[string][]byte{"v": []byte("1")}, nil))
			got, err := sc.Patch(ctx, "s", tc.pt, []byte(tc.patch(s.ResourceVersion)), metav1.PatchOptions{})
			if tc.wantErr != nil {
				if !tc.wantErr(err) {
					t.Fatalf("patch = %v, want a different error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got.Data["v"]) != tc.want || rvOf(t, got) <= rvOf(t, s) || got.UID != s.UID {
				t.Errorf("patched: data %q rv %s uid %s (was rv %s uid %s)", got.Data, got.ResourceVersion, got.UID, s.ResourceVersion, s.UID)
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		_, sc := newTestCluster(t)
		if _, err := sc.Patch(ctx, "nope", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("patch of a missing Secret = %v, want NotFound", err)
		}
	})
}

func TestDeletePreconditions(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		pre     func(s *corev1.Secret) *metav1.Preconditions
		wantErr string
	}{
		{"none", func(*corev1.Secret) *metav1.Preconditions { return nil }, ""},
		{"matching uid and resourceVersion", func(s *corev1.Secret) *metav1.Preconditions {
			return &metav1.Preconditions{UID: &s.UID, ResourceVersion: &s.ResourceVersion}
		}, ""},
		{"other uid", func(*corev1.Secret) *metav1.Preconditions {
			return &metav1.Preconditions{UID: ptr.To(types.UID("other"))}
		}, "the UID in the precondition (other) does not match the UID in record ("},
		{"stale resourceVersion", func(*corev1.Secret) *metav1.Preconditions {
			return &metav1.Preconditions{ResourceVersion: ptr.To("1")}
		}, "the ResourceVersion in the precondition (1) does not match the ResourceVersion in record ("},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, sc := newTestCluster(t)
			s := mustCreate(t, sc, secret("s", nil, nil))
			err := sc.Delete(ctx, "s", metav1.DeleteOptions{Preconditions: tc.pre(s)})
			_, getErr := sc.Get(ctx, "s", metav1.GetOptions{})
			if tc.wantErr != "" {
				if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), `Operation cannot be fulfilled on Secret "s": `) {
					t.Fatalf("delete = %v, want Conflict containing %q", err, tc.wantErr)
				}
				if getErr != nil {
					t.Errorf("Secret gone after a refused delete: %v", getErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !apierrors.IsNotFound(getErr) {
				t.Errorf("get after delete = %v, want NotFound", getErr)
			}
			if err := sc.Delete(ctx, "s", metav1.DeleteOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("second delete = %v, want NotFound", err)
			}
		})
	}
}

func names(items []corev1.Secret) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = s.Name
	}
	return out
}

func TestDeleteCollection(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		opts     metav1.ListOptions
		wantLeft []string
	}{
		{"label selector", metav1.ListOptions{LabelSelector: "owner=helm,key=k1"}, []string{"k1-other-owner", "k2", "k2-a"}},
		{"set-based selector", metav1.ListOptions{LabelSelector: "key in (k1,k2),owner=helm,type!=index"}, []string{"k1", "k1-other-owner", "k2"}},
		{"field selector on name", metav1.ListOptions{FieldSelector: "metadata.name=k2-a"}, []string{"k1", "k1-a", "k1-b", "k1-other-owner", "k2"}},
		{"field selector on type", metav1.ListOptions{FieldSelector: "type=demo/index"}, []string{"k1-a", "k1-b", "k1-other-owner", "k2-a"}},
		{"everything", metav1.ListOptions{}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, sc := newTestCluster(t)
			add := func(name, key, owner, typ string) {
				s := secret(name, nil, map[string]string{"owner": owner, "key": key, "type": typ})
				s.Type = corev1.SecretType("demo/" + typ)
				mustCreate(t, sc, s)
			}
			add("k1", "k1", "helm", "index")
			add("k1-a", "k1", "helm", "chunk")
			add("k1-b", "k1", "helm", "chunk")
			add("k1-other-owner", "k1", "someone", "chunk")
			add("k2", "k2", "helm", "index")
			add("k2-a", "k2", "helm", "chunk")
			otherNS := c.Clientset().CoreV1().Secrets("other")
			mustCreate(t, otherNS, secret("k1-a", nil, map[string]string{"owner": "helm", "key": "k1", "type": "chunk"}))

			if err := sc.DeleteCollection(ctx, metav1.DeleteOptions{}, tc.opts); err != nil {
				t.Fatal(err)
			}
			left, err := sc.List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := names(left.Items); !slices.Equal(got, tc.wantLeft) {
				t.Errorf("left %q, want %q", got, tc.wantLeft)
			}
			if l, _ := otherNS.List(ctx, metav1.ListOptions{}); len(l.Items) != 1 {
				t.Errorf("deletecollection reached another namespace: %q left there", names(l.Items))
			}
			if n := c.Requests()[VerbDeleteCollection]; n != 1 {
				t.Errorf("deletecollection counted %d times", n)
			}
		})
	}
}

func TestListPagination(t *testing.T) {
	ctx := context.Background()
	c, sc := newTestCluster(t)
	for _, n := range []string{"g", "c", "a", "f", "b", "e", "d"} {
		lbs := map[string]string{"parity": "odd"}
		if strings.Contains("bdf", n) {
			lbs["parity"] = "even"
		}
		mustCreate(t, sc, secret(n, nil, lbs))
	}
	mustCreate(t, c.Clientset().CoreV1().Secrets("other"), secret("a", nil, nil))

	tests := []struct {
		name      string
		selector  string
		limit     int64
		wantPages [][]string
	}{
		{"no limit", "", 0, [][]string{{"a", "b", "c", "d", "e", "f", "g"}}},
		{"limit 3", "", 3, [][]string{{"a", "b", "c"}, {"d", "e", "f"}, {"g"}}},
		{"limit 7", "", 7, [][]string{{"a", "b", "c", "d", "e", "f", "g"}}},
		// As from the API server's watch cache: a page that fills up while other
		// objects follow gets a continue token, matching or not, so a selective list
		// can end with an empty page.
		{"limit 1 with selector", "parity=even", 1, [][]string{{"b"}, {"d"}, {"f"}, {}}},
		{"limit 2 with selector", "parity=odd", 2, [][]string{{"a", "c"}, {"e", "g"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := metav1.ListOptions{LabelSelector: tc.selector, Limit: tc.limit}
			var pages [][]string
			for {
				l, err := sc.List(ctx, opts)
				if err != nil {
					t.Fatal(err)
				}
				if l.ResourceVersion == "" {
					t.Error("list without a resourceVersion")
				}
				pages = append(pages, names(l.Items))
				if tc.selector == "" && l.Continue != "" {
					if l.RemainingItemCount == nil || *l.RemainingItemCount != int64(7-len(slices.Concat(pages...))) {
						t.Errorf("remainingItemCount %v after %d items", l.RemainingItemCount, len(slices.Concat(pages...)))
					}
				}
				if l.Continue == "" {
					break
				}
				opts.Continue = l.Continue
				if len(pages) > 10 {
					t.Fatal("pagination does not end")
				}
			}
			if fmt.Sprint(pages) != fmt.Sprint(tc.wantPages) {
				t.Errorf("pages %q, want %q", pages, tc.wantPages)
			}
		})
	}

	t.Run("all namespaces in key order", func(t *testing.T) {
		l, err := c.Clientset().CoreV1().Secrets("").List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range l.Items {
			got = append(got, s.Namespace+"/"+s.Name)
		}
		if want := []string{"apps/a", "apps/b", "apps/c", "apps/d", "apps/e", "apps/f", "apps/g", "other/a"}; !slices.Equal(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("list resourceVersion follows writes", func(t *testing.T) {
		before, _ := sc.List(ctx, metav1.ListOptions{})
		s := mustCreate(t, sc, secret("h", nil, nil))
		after, _ := sc.List(ctx, metav1.ListOptions{})
		if after.ResourceVersion != s.ResourceVersion || after.ResourceVersion == before.ResourceVersion {
			t.Errorf("list rv %s -> %s, latest write %s", before.ResourceVersion, after.ResourceVersion, s.ResourceVersion)
		}
	})
	bad := []struct {
		name string
		opts metav1.ListOptions
	}{
		{"invalid continue", metav1.ListOptions{Continue: "not-a-token"}},
		{"invalid label selector", metav1.ListOptions{LabelSelector: "a b c"}},
		{"invalid field selector", metav1.ListOptions{FieldSelector: "x"}},
		{"unsupported field", metav1.ListOptions{FieldSelector: "spec.foo=bar"}},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := sc.List(ctx, tc.opts); !apierrors.IsBadRequest(err) {
				t.Errorf("list = %v, want BadRequest", err)
			}
			if err := sc.DeleteCollection(ctx, metav1.DeleteOptions{}, tc.opts); tc.opts.Continue == "" && !apierrors.IsBadRequest(err) {
				t.Errorf("deletecollection = %v, want BadRequest", err)
			}
		})
	}
}

func TestMetadataClient(t *testing.T) {
	ctx := context.Background()
	c, sc := newTestCluster(t)
	md := c.Metadata().Resource(corev1.SchemeGroupVersion.WithResource("secrets")).Namespace(ns)
	a := mustCreate(t, sc, secret("a", map[string][]byte{"chunk": []byte("payload")}, map[string]string{"type": "index"}))
	mustCreate(t, sc, secret("b", nil, map[string]string{"type": "chunk"}))

	list := func(opts metav1.ListOptions) []string {
		t.Helper()
		l, err := md.List(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range l.Items {
			out = append(out, p.Name+":"+p.Labels["type"])
			if p.Kind != "" || p.UID == "" || p.ResourceVersion == "" {
				t.Errorf("item %s: kind %q uid %q rv %q", p.Name, p.Kind, p.UID, p.ResourceVersion)
			}
		}
		return out
	}
	if got := list(metav1.ListOptions{}); !slices.Equal(got, []string{"a:index", "b:chunk"}) {
		t.Errorf("list %q", got)
	}
	p, err := md.Get(ctx, "a", metav1.GetOptions{})
	if err != nil || p.UID != a.UID || p.ResourceVersion != a.ResourceVersion {
		t.Fatalf("get = %v, %+v", err, p)
	}

	// Later changes through the clientset show at once.
	mustCreate(t, sc, secret("c", nil, map[string]string{"type": "index"}))
	a.Labels["type"] = "retired"
	if _, err := sc.Update(ctx, a, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := sc.Delete(ctx, "b", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := list(metav1.ListOptions{}); !slices.Equal(got, []string{"a:retired", "c:index"}) {
		t.Errorf("after changes: list %q", got)
	}
	if got := list(metav1.ListOptions{LabelSelector: "type=index"}); !slices.Equal(got, []string{"c:index"}) {
		t.Errorf("selector: list %q", got)
	}
	first, err := md.List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil || len(first.Items) != 1 || first.Continue == "" {
		t.Fatalf("page 1 = %v, %d items, continue %q", err, len(first.Items), first.Continue)
	}
	second, err := md.List(ctx, metav1.ListOptions{Limit: 1, Continue: first.Continue})
	if err != nil || len(second.Items) != 1 || second.Items[0].Name != "c" || second.Continue != "" {
		t.Fatalf("page 2 = %v, %+v", err, second)
	}
	if _, err := md.Get(ctx, "b", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get deleted = %v, want NotFound", err)
	}
	// Writes through the metadata client reach the same objects.
	if _, err := md.Patch(ctx, "c", types.MergePatchType, []byte(`{"metadata":{"labels":{"seen":"yes"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := sc.Get(ctx, "c", metav1.GetOptions{}); got.Labels["seen"] != "yes" {
		t.Errorf("patch through metadata not visible: %v", got.Labels)
	}
	if err := md.Delete(ctx, "c", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := sc.Get(ctx, "c", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("delete through metadata not visible: %v", err)
	}
	if n := c.Requests()[VerbList]; n != 5 {
		t.Errorf("metadata lists counted %d, want 5", n)
	}
}

func next(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch closed")
		}
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no watch event")
	}
	return watch.Event{}
}

func expect(t *testing.T, w watch.Interface, typ watch.EventType, name string) *corev1.Secret {
	t.Helper()
	ev := next(t, w)
	s, ok := ev.Object.(*corev1.Secret)
	if ev.Type != typ || !ok || s.Name != name {
		t.Fatalf("event %s %T %v, want %s %s", ev.Type, ev.Object, ev.Object, typ, name)
	}
	return s
}

func TestWatch(t *testing.T) {
	ctx := context.Background()
	c, sc := newTestCluster(t)
	mustCreate(t, sc, secret("pre", nil, map[string]string{"type": "index"}))

	w, err := sc.Watch(ctx, metav1.ListOptions{LabelSelector: "type=index"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	expect(t, w, watch.Added, "pre") // initial state

	mustCreate(t, sc, secret("ignored", nil, map[string]string{"type": "chunk"}))
	s := mustCreate(t, sc, secret("s", nil, map[string]string{"type": "index"}))
	expect(t, w, watch.Added, "s")
	s.Data = map[string][]byte{"v": []byte("1")}
	s, _ = sc.Update(ctx, s, metav1.UpdateOptions{})
	if got := expect(t, w, watch.Modified, "s"); got.ResourceVersion != s.ResourceVersion {
		t.Errorf("modified event rv %s, want %s", got.ResourceVersion, s.ResourceVersion)
	}
	s.Labels["type"] = "chunk" // leaves the selection
	if _, err := sc.Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect(t, w, watch.Deleted, "s")
	if err := sc.Delete(ctx, "pre", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expect(t, w, watch.Deleted, "pre")

	t.Run("from a list's resourceVersion", func(t *testing.T) {
		l, err := sc.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		mustCreate(t, sc, secret("after-list", nil, nil))
		w, err := sc.Watch(ctx, metav1.ListOptions{ResourceVersion: l.ResourceVersion})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		expect(t, w, watch.Added, "after-list")
	})
	t.Run("too old resourceVersion", func(t *testing.T) {
		for i := range historyLen + 1 {
			if _, err := c.Clientset().CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("cm-", i)}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := sc.Watch(ctx, metav1.ListOptions{ResourceVersion: "2"}); !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
			t.Errorf("watch from an old resourceVersion = %v, want 410 Gone", err)
		}
	})
	t.Run("slow reader loses nothing", func(t *testing.T) {
		w, err := sc.Watch(ctx, metav1.ListOptions{ResourceVersion: strconv.FormatUint(rvOf(t, mustCreate(t, sc, secret("mark", nil, nil))), 10)})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		for i := range 300 {
			mustCreate(t, sc, secret(fmt.Sprint("burst-", i), nil, nil))
		}
		for i := range 300 {
			expect(t, w, watch.Added, fmt.Sprint("burst-", i))
		}
	})
	t.Run("context ends the watch", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		w, err := sc.Watch(cctx, metav1.ListOptions{ResourceVersion: "0", LabelSelector: "none=none"})
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		select {
		case _, ok := <-w.ResultChan():
			if ok {
				t.Error("event after cancel")
			}
		case <-time.After(5 * time.Second):
			t.Error("watch still open after its context ended")
		}
	})
	t.Run("metadata watch", func(t *testing.T) {
		w, err := c.Metadata().Resource(secretsGVR).Namespace(ns).Watch(ctx, metav1.ListOptions{LabelSelector: "w=md"})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		mustCreate(t, sc, secret("md", map[string][]byte{"x": []byte("y")}, map[string]string{"w": "md"}))
		ev := next(t, w)
		if p, ok := ev.Object.(*metav1.PartialObjectMetadata); ev.Type != watch.Added || !ok || p.Name != "md" {
			t.Errorf("metadata event %s %T", ev.Type, ev.Object)
		}
	})
}

func TestNamespaceDeletionRemovesContents(t *testing.T) {
	ctx := context.Background()
	c, sc := newTestCluster(t)
	mustCreate(t, sc, secret("a", nil, nil))
	if err := c.Clientset().CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := sc.Get(ctx, "a", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Secret survived its namespace: %v", err)
	}
}

func TestRequestCounting(t *testing.T) {
	ctx := context.Background()
	c, sc := newTestCluster(t)
	s := mustCreate(t, sc, secret("a", nil, nil))
	_, _ = sc.Get(ctx, "a", metav1.GetOptions{})
	_, _ = sc.Get(ctx, "missing", metav1.GetOptions{})
	_, _ = sc.List(ctx, metav1.ListOptions{})
	_, _ = sc.Update(ctx, s, metav1.UpdateOptions{})
	_, _ = sc.Patch(ctx, "a", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{})
	_ = sc.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "x=y"})
	_ = sc.Delete(ctx, "a", metav1.DeleteOptions{})
	w, _ := sc.Watch(ctx, metav1.ListOptions{})
	w.Stop()
	_, _ = c.Metadata().Resource(secretsGVR).Namespace(ns).List(ctx, metav1.ListOptions{})

	want := map[string]int{"create": 1, "get": 2, "list": 2, "update": 1, "patch": 1, "deletecollection": 1, "delete": 1, "watch": 1}
	if got := c.Requests(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests %v, want %v", got, want)
	}
	if got := c.Writes(); got != 5 {
		t.Errorf("writes %d, want 5", got)
	}
	c.ResetRequests()
	if got := c.Requests(); len(got) != 0 {
		t.Errorf("after reset: %v", got)
	}

	t.Run("concurrent requests", func(t *testing.T) {
		c, sc := newTestCluster(t)
		done := make(chan struct{})
		for i := range 8 {
			go func() {
				defer func() { done <- struct{}{} }()
				for j := range 25 {
					_, _ = sc.Create(ctx, secret(fmt.Sprintf("c-%d-%d", i, j), nil, nil), metav1.CreateOptions{})
					_, _ = sc.List(ctx, metav1.ListOptions{Limit: 5})
				}
			}()
		}
		for range 8 {
			<-done
		}
		if got := c.Requests(); got["create"] != 200 || got["list"] != 200 {
			t.Errorf("requests %v", got)
		}
		l, _ := sc.List(ctx, metav1.ListOptions{})
		if len(l.Items) != 200 {
			t.Errorf("%d Secrets, want 200", len(l.Items))
		}
	})
}

func TestFailRequest(t *testing.T) {
	ctx := context.Background()
	boom := apierrors.NewServiceUnavailable("boom")
	c, sc := newTestCluster(t)
	mustCreate(t, sc, secret("a", nil, nil))

	c.FailRequest(VerbGet, 2, boom)
	c.FailRequest("", 4, nil)
	var errs []error
	for range 5 {
		_, err := sc.Get(ctx, "a", metav1.GetOptions{})
		errs = append(errs, err)
	}
	if errs[0] != nil || !errors.Is(errs[1], boom) || errs[2] != nil || !apierrors.IsInternalError(errs[3]) || errs[4] != nil {
		t.Errorf("errors %v, want the 2nd to be %v and the 4th an internal error", errs, boom)
	}
	// A failed write does not happen.
	c.FailRequest(VerbDelete, 1, nil)
	if err := sc.Delete(ctx, "a", metav1.DeleteOptions{}); err == nil {
		t.Fatal("injected delete failure did not fire")
	}
	if _, err := sc.Get(ctx, "a", metav1.GetOptions{}); err != nil {
		t.Errorf("failed delete removed the Secret: %v", err)
	}
	if got := c.Requests()[VerbGet]; got != 6 {
		t.Errorf("gets counted %d, want 6 (failed ones count)", got)
	}
}

func TestCancelledContext(t *testing.T) {
	c, sc := newTestCluster(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sc.Get(ctx, "a", metav1.GetOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("get with a cancelled context = %v", err)
	}
	if _, err := c.Metadata().Resource(secretsGVR).Namespace(ns).List(ctx, metav1.ListOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("metadata list with a cancelled context = %v", err)
	}
	if got := c.Requests(); len(got) != 0 {
		t.Errorf("requests that never left counted: %v", got)
	}
}
