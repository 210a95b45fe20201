package ops_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// TestErrorsSayWhatToDo proves that failures to reach or use the cluster come back as
// errors a caller can tell apart, whose messages say what failed and what to do.
func TestErrorsSayWhatToDo(t *testing.T) {
	ctx := t.Context()

	t.Run("unreachable", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close() // nothing listens there now
		rc := rest.CopyConfig(cluster.Config)
		rc.Host = "https://" + addr
		// Every attempt to connect is counted: a refused connection is reported
		// at once, not retried until --request-timeout runs out.
		var dials atomic.Int32
		c := connect(t, writeKubeconfig(t, rc, ""), []string{"--request-timeout", "10s"}, func(o *kube.Options) {
			o.WrapConfig = func(rc *rest.Config) {
				d := &net.Dialer{}
				rc.Dial = func(ctx context.Context, network, address string) (net.Conn, error) {
					dials.Add(1)
					return d.DialContext(ctx, network, address)
				}
			}
		})
		_, err = c.Releases(ctx)
		msg := mustErrIs(t, err, kube.ErrUnreachable)
		mustContain(t, msg, addr, "Check --context/--kubeconfig")
		t.Logf("unreachable after %d attempts to connect: %v", dials.Load(), err)
		if n := dials.Load(); n < 1 || n > 3 {
			t.Errorf("a refused connection was tried %d times, want once for each of the 3 stores at most", n)
		}
	})

	t.Run("timeout", func(t *testing.T) {
		// A server that accepts connections and never answers.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		go func() {
			for {
				conn, err := l.Accept()
				if err != nil {
					return
				}
				t.Cleanup(func() { conn.Close() })
			}
		}()
		rc := rest.CopyConfig(cluster.Config)
		rc.Host = "https://" + l.Addr().String()
		c := connect(t, writeKubeconfig(t, rc, "default"), []string{"--request-timeout", "1s"}, nil)
		_, err = c.History(ctx, "", "app")
		mustContain(t, mustErrIs(t, err, kube.ErrTimeout), "--request-timeout", "list secrets in namespace default")
		t.Logf("timeout: %v", err)
	})

	t.Run("credentials rejected", func(t *testing.T) {
		rc := &rest.Config{Host: cluster.Config.Host, TLSClientConfig: rest.TLSClientConfig{CAData: cluster.Config.CAData}, BearerToken: "expired-or-bogus-token"}
		c := connect(t, writeKubeconfig(t, rc, "default"), nil, nil)
		_, err := c.Releases(ctx)
		mustContain(t, mustErrIs(t, err, kube.ErrUnauthorized), "refused your credentials", "Log in again")
		t.Logf("credentials rejected: %v", err)
	})

	t.Run("forbidden", func(t *testing.T) {
		ns := cluster.Namespace(t)
		admin := connect(t, adminKubeconfig(t, ns), []string{"--owner", opsOwner, "--chunk-size", "16384"}, nil)
		seed(t, originalDriver(ns, opsOwner, 16<<10), history("shop", ns, 2, 100)...)
		userName := "dev-" + ns
		user, err := cluster.Env.AddUser(envtest.User{Name: userName, Groups: []string{"developers"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		kc := writeKubeconfig(t, user.Config(), ns)
		c := connect(t, kc, []string{"--owner", opsOwner}, nil)

		_, err = c.Releases(ctx)
		mustContain(t, mustErrIs(t, err, kube.ErrForbidden),
			"may not list secrets in namespace "+ns, "kubectl auth can-i list secrets -n "+ns, `"dev-`+ns+`"`)
		t.Logf("forbidden: %v", err)
		all := connect(t, kc, []string{"--owner", opsOwner, "-A"}, nil)
		_, err = all.Releases(ctx)
		mustContain(t, mustErrIs(t, err, kube.ErrForbidden), "may not list secrets across all namespaces", "(or -A)")

		// Allowed to list Secrets but not to read one: the listing works from
		// metadata, decoding a revision says which verb is missing.
		grant(t, ns, userName, "lister", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"list"}})
		rows := waitReleases(t, c, 1)
		latest := rows[0].Latest
		err = c.FillDetails(ctx, []*kube.RevisionRow{&latest})
		mustContain(t, mustErrIs(t, err, kube.ErrForbidden), "may not get secrets in namespace "+ns)
		if latest.Known || latest.Broken {
			t.Errorf("a row that could not be read for want of rights is marked %+v", latest)
		}

		// Allowed every verb on Secrets, not to delete ConfigMaps: the uninstall is
		// refused before it starts, naming what is missing.
		f := &opsFixture{ns: ns, kubeconfig: adminKubeconfig(t, ns), c: admin,
			drv: storage.NewDriver(secrets(ns), opsOwner, storage.ChunkedSecretsConfig{ChunkSize: 16 << 10})}
		f.install(t, "web", 1)
		grant(t, ns, userName, "secrets-admin", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"*"}},
			rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list"}})
		waitReleases(t, c, 2)
		writer := connect(t, kc, []string{"--owner", opsOwner, "--chunk-size", "16384"}, nil)
		_, err = applyByName(ctx, writer, ns, "web", uninstallPlan(false))
		if err == nil {
			t.Fatal("uninstall without the right to delete ConfigMaps succeeded")
		}
		mustContain(t, mustErrIs(t, err, kube.ErrForbidden), "uninstall needs permission to delete configmaps in namespace "+ns,
			"nothing was changed", "kubectl auth can-i delete configmaps -n "+ns)
		t.Logf("uninstall forbidden: %v", err)
		if rows := waitReleases(t, c, 2); len(rows) != 2 {
			t.Errorf("the refused uninstall removed a release: %+v", rows)
		}
	})

	t.Run("nothing under this owner", func(t *testing.T) {
		ns := cluster.Namespace(t)
		seed(t, chunkviewDriver(ns, "operator-controller", 0), history("ext", ns, 1, 100)...)
		c := connect(t, adminKubeconfig(t, ns), nil, nil)
		rows, err := c.Releases(ctx)
		if err != nil || len(rows) != 0 {
			t.Errorf("Releases under owner helm: %d rows, %v", len(rows), err)
		}
		_, err = c.History(ctx, ns, "ext")
		mustContain(t, mustErrIs(t, err, kube.ErrNotFound), `no release "ext" with owner "helm" in namespace "`+ns+`"`, "--owner", "--profile olmv1")
		t.Logf("not found: %v", err)
		if _, err := decode(ctx, c, ns, "ext", 1); !errors.Is(err, kube.ErrNotFound) {
			t.Errorf("Release of a missing name: %v", err)
		}
		right := connect(t, adminKubeconfig(t, ns), []string{"--owner", "operator-controller"}, nil)
		if _, err := right.History(ctx, ns, "ext"); err != nil {
			t.Errorf("with the right --owner: %v", err)
		}
		if _, err := right.Revision(ctx, ns, "ext", 5); err == nil || !strings.Contains(err.Error(), `release "ext" has no revision 5 (it has 1..1)`) {
			t.Errorf("Revision 5: %v", err)
		}
	})
}

// waitReleases lists releases until the new rights take effect and n are listed.
func waitReleases(t *testing.T, c *kube.Client, n int) []kube.ReleaseRow {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		rows, err := c.Releases(t.Context())
		if err == nil && len(rows) == n {
			return rows
		}
		if time.Now().After(deadline) {
			t.Fatalf("Releases: %d rows, %v; want %d", len(rows), err, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestExplainNamesRefusedRequest: Explain takes the verb, resource and namespace of
// a Forbidden from the authorizer's message, not from what the caller expected.
func TestExplainNamesRefusedRequest(t *testing.T) {
	forbidden := func(gr schema.GroupResource, name, msg string) error {
		return apierrors.NewForbidden(gr, name, errors.New(msg))
	}
	cases := []struct {
		name           string
		err            error
		verb, res, ns  string
		want, unwanted []string
	}{
		{
			"a ConfigMap in the release's namespace",
			forbidden(schema.GroupResource{Resource: "configmaps"}, "web-config", `User "dev" cannot patch resource "configmaps" in API group "" in the namespace "apps"`),
			"update", "secrets", "records",
			[]string{"may not patch configmaps in namespace apps", "kubectl auth can-i patch configmaps -n apps", "Role granting"},
			[]string{"secrets in namespace records"},
		},
		{
			"a cluster-scoped resource",
			forbidden(schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}, "web", `User "dev" cannot create resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope`),
			"update", "secrets", "apps",
			[]string{"may not create clusterroles.rbac.authorization.k8s.io at the cluster scope", "ClusterRole granting", "kubectl auth can-i create clusterroles.rbac.authorization.k8s.io)"},
			[]string{"-n apps"},
		},
		{
			"a list across all namespaces",
			forbidden(schema.GroupResource{Resource: "secrets"}, "", `User "dev" cannot list resource "secrets" in API group "" at the cluster scope`),
			"list", "secrets", "",
			[]string{"may not list secrets across all namespaces", "(or -A)"},
			nil,
		},
		{
			"a message of another shape",
			forbidden(schema.GroupResource{Resource: "secrets"}, "x", "denied by a webhook"),
			"delete", "secrets", "apps",
			[]string{"may not delete secrets in namespace apps", "denied by a webhook"},
			nil,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := kube.Explain(tc.err, tc.verb, tc.res, tc.ns)
			msg := mustErrIs(t, got, kube.ErrForbidden)
			mustContain(t, msg, tc.want...)
			for _, u := range tc.unwanted {
				if strings.Contains(msg, u) {
					t.Errorf("message has %q: %s", u, msg)
				}
			}
		})
	}
}
