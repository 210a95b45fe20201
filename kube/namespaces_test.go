package kube_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/chunkview/chunkview/kube"
)

// TestNamespacesPagedAndExplained: the namespace picker's names come in pages,
// sorted, every namespace once; a user who may not list namespaces gets kube's
// Forbidden, which the picker turns into "type a name".
func TestNamespacesPagedAndExplained(t *testing.T) {
	defer kube.SetMetadataPage(2)()
	ns := []string{cluster.Namespace(t), cluster.Namespace(t), cluster.Namespace(t)}
	wire := &wireLog{}
	c := connect(t, adminKubeconfig(t, ns[0]), []string{"-n", ns[0]}, func(o *kube.Options) {
		o.WrapConfig = func(rc *rest.Config) { wire.install(rc) }
	})
	names, err := c.Namespaces(t.Context())
	if err != nil {
		t.Fatalf("Namespaces: %v", err)
	}
	for _, want := range append(ns, "default", "kube-system") {
		if n := strings.Count(" "+strings.Join(names, " ")+" ", " "+want+" "); n != 1 {
			t.Errorf("%s listed %d times in %v", want, n, names)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("names not sorted: %v", names)
	}
	var pages int
	for _, r := range wire.Requests() {
		if strings.HasSuffix(r.Path, "/api/v1/namespaces") {
			pages++
			if !strings.Contains(r.Query, "limit=2") {
				t.Errorf("a namespace list without the page size: %v", r)
			}
		}
	}
	if want := (len(names) + 1) / 2; pages < want {
		t.Errorf("%d list requests for %d namespaces in pages of 2, want at least %d", pages, len(names), want)
	}

	user := "ns-picker-" + ns[0]
	rc := connect(t, rbacUser(t, user, ns[0]), []string{"-n", ns[0]}, nil)
	if _, err := rc.Namespaces(t.Context()); !errors.Is(err, kube.ErrForbidden) || !strings.Contains(err.Error(), "namespaces") {
		t.Errorf("Namespaces without the right to list them: %v, want kube.ErrForbidden naming namespaces", err)
	}
}
