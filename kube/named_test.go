package kube_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/storage/driver"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/kube"
)

// TestReleasesNamedListsSecretsOnce: a release looked up by name is looked for in
// the chunked store (every namespace: an operator may keep its records away from
// the release) and in Helm's Secrets (the release's namespace) with one list of
// the Secrets that carry its name, not one per store, and finds what each store
// finds on its own: the chunked record kept in another namespace, Helm's record in
// the release's namespace, not a Helm record kept in a third namespace,
// not a Secret of the chart's that happens to carry the same labels; and a
// release whose chunked records, named as Helm's are, sit where Helm's store looks
// is the chunked store's alone. A user who
// may list Secrets only in the release's namespace is refused the list of every
// namespace once, not once per store, and finds Helm's record.
func TestReleasesNamedListsSecretsOnce(t *testing.T) {
	ctx := t.Context()
	rel, other, third := cluster.Namespace(t), cluster.Namespace(t), cluster.Namespace(t)
	const name = "named-once"
	seed(t, chunkviewDriver(other, "helm", 0), history(name, rel, 2, 2_000)...)
	seed(t, driver.NewSecrets(secrets(rel)), history(name, rel, 1, 2_000)...)
	// A record of the release's name and namespace that another tool keeps in a
	// third namespace: Helm's Secrets store does not look there.
	seed(t, driver.NewSecrets(secrets(third)), history(name, rel, 1, 2_000)...)
	// A release whose chunked records live in the release's namespace, beside
	// where Helm's Secrets store looks, named as Helm's records are.
	const twin = "named-twin"
	seed(t, chunkviewDriver(rel, "helm", 0), history(twin, rel, 3, 2_000)...)
	decoy := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name + "-config", Labels: map[string]string{"name": name, "owner": "helm"}}}
	if _, err := secrets(rel).Create(ctx, decoy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// found lists the release as c finds it, and the Secret lists that cost.
	found := func(t *testing.T, c *kube.Client, wire *wireLog, name string) ([]string, int) {
		t.Helper()
		wire.Reset()
		rows, err := c.ReleasesNamed(ctx, name)
		if err != nil {
			t.Fatalf("ReleasesNamed: %v", err)
		}
		lists := 0
		for _, rq := range wire.Requests() {
			if rq.Method == "GET" && (strings.HasSuffix(rq.Path, "/secrets") || rq.Path == "/api/v1/secrets") {
				lists++
			}
		}
		return where(rows), lists
	}
	// alone is what each store finds on its own: the oracle.
	alone := func(t *testing.T, c *kube.Client, name string) []string {
		t.Helper()
		var out []string
		for _, d := range []string{kube.DriverChunked, kube.DriverSecret, kube.DriverConfigMap} {
			rows, err := c.WithDrivers(d).ReleasesNamed(ctx, name)
			if err != nil && !strings.Contains(err.Error(), "forbidden") {
				t.Fatalf("%s alone: %v", d, err)
			}
			out = append(out, where(rows)...)
		}
		slices.Sort(out)
		return out
	}

	t.Run("admin", func(t *testing.T) {
		wire := &wireLog{}
		c := connect(t, adminKubeconfig(t, rel), []string{"-n", rel}, func(o *kube.Options) { o.WrapConfig = wire.install })
		for name, want := range map[string][]string{
			name: {"chunked " + other + " 2", "secret " + rel + " 1"},
			twin: {"chunked " + rel + " 3"},
		} {
			got, lists := found(t, c, wire, name)
			if each := alone(t, c, name); !slices.Equal(got, want) || !slices.Equal(each, want) {
				t.Errorf("%s: found %v, each store alone %v; want %v", name, got, each, want)
			}
			if lists != 1 {
				t.Errorf("%s: %d lists of Secrets, want 1 for both stores", name, lists)
			}
		}
	})

	t.Run("namespace reader", func(t *testing.T) {
		user := "named-" + rel
		kc := rbacUser(t, user, rel)
		grant(t, rel, user, "reader", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets", "configmaps"}, Verbs: []string{"get", "list"}})
		wire := &wireLog{}
		c := connect(t, kc, []string{"-n", rel}, func(o *kube.Options) { o.WrapConfig = wire.install })
		waitAllowed(t, "list as a reader", func() error {
			_, err := c.Clientset().CoreV1().Secrets(rel).List(ctx, metav1.ListOptions{})
			return err
		})
		for name, want := range map[string][]string{
			name: {"secret " + rel + " 1"},
			twin: {"chunked " + rel + " 3"},
		} {
			got, lists := found(t, c, wire, name)
			if each := alone(t, c, name); !slices.Equal(got, want) || !slices.Equal(each, want) {
				t.Errorf("%s: found %v, each store alone %v; want %v", name, got, each, want)
			}
			if lists != 2 {
				t.Errorf("%s: %d lists of Secrets, want 2: the list of every namespace, refused once, then the release's namespace", name, lists)
			}
		}
	})
}

// where names each row by its store, storage namespace and revision count.
func where(rows []kube.ReleaseRow) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.Latest.Driver+" "+r.Latest.StorageNamespace+" "+strconv.Itoa(r.Revisions))
	}
	slices.Sort(out)
	return out
}
