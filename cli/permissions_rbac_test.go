package cli_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/internal/faultproxy"
)

// userEnv is e with its kubeconfig replaced by one for a new user, whose context
// namespace is ns.
func userEnv(t *testing.T, e *env, name, ns string) *env {
	t.Helper()
	u, err := cluster.Env.AddUser(envtest.User{Name: name, Groups: []string{"cli-rbac"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ue := *e
	ue.kubeconfig = kubeconfigFor(t, u.Config(), ns)
	return &ue
}

func kubeconfigFor(t *testing.T, rc *rest.Config, ns string) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["c"] = &clientcmdapi.Cluster{Server: rc.Host, CertificateAuthorityData: rc.CAData}
	kc.AuthInfos["u"] = &clientcmdapi.AuthInfo{ClientCertificateData: rc.CertData, ClientKeyData: rc.KeyData, Token: rc.BearerToken}
	kc.Contexts["c"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u", Namespace: ns}
	kc.CurrentContext = "c"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// bind grants user the rules in ns.
func bind(t *testing.T, ns, user, name string, rules ...rbacv1.PolicyRule) {
	t.Helper()
	ctx := context.Background()
	rb := cluster.Client.RbacV1()
	if _, err := rb.Roles(ns).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := rb.RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: user}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

var secretReader = rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list"}}

// rbacFixture is a namespace with something for every command to change: a release
// of two revisions whose latest is stuck, and a leftover chunk.
func rbacFixture(t *testing.T) *env {
	e := newEnv(t)
	e.install(byChunkview, "app", 2)
	e.addPending(byChunkview, "app", "pending-upgrade", time.Hour)
	e.addOrphan("app", 1)
	return e
}

// retryUntil reruns a command until it exits with code, for RBAC changes to land.
func retryUntil(t *testing.T, e *env, code int, args ...string) result {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		r := e.run(args...)
		if r.code == code || time.Now().After(deadline) {
			return r
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestRBACReadOnlyUserCLI: a user allowed get and list on Secrets reads everything;
// every command that would change something refuses up front (exit 6) naming the
// verbs it lacks, on secrets, in the namespace, and changes nothing.
func TestRBACReadOnlyUserCLI(t *testing.T) {
	e := rbacFixture(t)
	user := "cli-viewer-" + e.ns
	bind(t, e.ns, user, "reader", secretReader)
	ue := userEnv(t, e, user, e.ns)

	mustCode(t, retryUntil(t, ue, cli.ExitOK, "ls"), cli.ExitOK)
	for _, args := range [][]string{{"history", "app"}, {"inspect", "app"}, {"diff", "app", "1", "2"}, {"verify"}, {"gc", "--dry-run", "--min-age", "0"}, {"rollback", "app", "1", "--dry-run"}, {"fix-stuck", "app"}} {
		r := ue.run(args...)
		mustCode(t, r, cli.ExitOK)
	}
	before := e.secrets("app")
	for _, tc := range []struct {
		args  []string
		verbs string
	}{
		{[]string{"rollback", "app", "1", "--yes"}, "create, update, patch, delete"},
		{[]string{"uninstall", "app", "--yes"}, "create, update, delete, deletecollection"},
		{[]string{"delete-revision", "app", "1", "--yes"}, "delete, deletecollection"},
		{[]string{"gc", "--yes", "--min-age", "0"}, "delete"},
		{[]string{"fix-stuck", "app", "--mark-failed", "--yes"}, "create, update, patch, delete, deletecollection"},
	} {
		r := ue.run(tc.args...)
		mustCode(t, r, cli.ExitUnreachable)
		oneLineErr(t, r)
		for _, want := range []string{tc.args[0] + " needs permission to " + tc.verbs + " secrets in namespace " + e.ns, "nothing was changed", "kubectl auth can-i"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%v: stderr lacks %q: %s", tc.args, want, r)
			}
		}
		if strings.Contains(r.stdout, "Proceed") || strings.Contains(r.stderr, "Proceed") {
			t.Errorf("%v asked for confirmation before refusing: %s", tc.args, r)
		}
		t.Logf("%s: %s", tc.args[0], strings.TrimSpace(r.stderr))
	}
	after := e.secrets("app")
	if len(after) != len(before) {
		t.Errorf("revisions changed: %v -> %v", before, after)
	}
}

// TestRBACNoAccessCLI: without access to Secrets, the CLI says forbidden, and what
// is needed: the verb, the resource, the namespace.
func TestRBACNoAccessCLI(t *testing.T) {
	e := rbacFixture(t)
	ue := userEnv(t, e, "cli-nobody-"+e.ns, e.ns)
	r := ue.run("ls")
	mustCode(t, r, cli.ExitUnreachable)
	oneLineErr(t, r)
	for _, want := range []string{"forbidden", "may not list secrets in namespace " + e.ns, `"list" on "secrets"`} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q: %s", want, r)
		}
	}
	mustCode(t, ue.run("history", "app"), cli.ExitUnreachable)
}

// TestRBACAllNamespacesCLI: ls -A as a user who may read two namespaces lists both
// and warns that the rest are not shown.
func TestRBACAllNamespacesCLI(t *testing.T) {
	home, other := rbacFixture(t), rbacFixture(t)
	user := "cli-scoped-" + home.ns
	bind(t, home.ns, user, "reader", secretReader)
	bind(t, other.ns, user, "reader", secretReader)
	ue := userEnv(t, home, user, home.ns)
	r := retryUntil(t, ue, cli.ExitOK, "ls", "-A", "--namespaces", other.ns, "-o", "json")
	mustCode(t, r, cli.ExitOK)
	var out cli.Releases
	decode(t, r, &out)
	nss := map[string]bool{}
	for _, it := range out.Releases {
		nss[it.StorageNamespace] = true
	}
	if len(nss) != 2 || !nss[home.ns] || !nss[other.ns] {
		t.Errorf("ls -A listed namespaces %v", nss)
	}
	for _, want := range []string{"Warning:", "may not list secrets across all namespaces", home.ns, other.ns, "every other namespace"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q: %s", want, r)
		}
	}
	t.Logf("ls -A: %s", strings.TrimSpace(r.stderr))
	// A release in a readable namespace is found by name with -A.
	mustCode(t, ue.run("history", "app", "-A", "--namespaces", other.ns), cli.ExitUsage) // in two namespaces: pick one

	// verify and gc -A check the readable namespaces and warn about the rest.
	for _, args := range [][]string{
		{"verify", "-A", "--namespaces", other.ns, "-o", "json"},
		{"gc", "-A", "--namespaces", other.ns, "--dry-run", "-o", "json"},
	} {
		r := ue.run(args...)
		if r.code != cli.ExitOK && r.code != cli.ExitProblems {
			t.Fatalf("%v: %s", args, r)
		}
		for _, want := range []string{"Warning:", "may not list secrets across all namespaces", home.ns, other.ns} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%v: stderr lacks %q: %s", args, want, r)
			}
		}
		for _, ns := range []string{home.ns, other.ns} {
			if !strings.Contains(r.stdout, `"namespace": "`+ns+`"`) {
				t.Errorf("%v: output lacks namespace %s: %s", args, ns, r.stdout)
			}
		}
		var out struct{ Partial string }
		decode(t, r, &out)
		if !strings.Contains(out.Partial, "may not list secrets across all namespaces") {
			t.Errorf("%v: the JSON does not say it is partial: %q", args, out.Partial)
		}
	}
}

// TestReadOnlyZeroMutatingCLI: with --read-only, an admin runs every command; the
// reads work, the changes are refused, and the proxy in front of the server counts
// not one mutating request.
func TestReadOnlyZeroMutatingCLI(t *testing.T) {
	e := rbacFixture(t)
	p, err := faultproxy.New(cluster.Config, faultproxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	kc, err := p.WriteKubeconfig(t.TempDir(), e.ns)
	if err != nil {
		t.Fatal(err)
	}
	pe := *e
	pe.kubeconfig = kc
	p.Reset()
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"ls"}, cli.ExitOK},
		{[]string{"history", "app"}, cli.ExitOK},
		{[]string{"inspect", "app", "--values"}, cli.ExitOK},
		{[]string{"diff", "app", "1", "2", "-o", "json"}, cli.ExitOK},
		{[]string{"verify", "--decode"}, cli.ExitOK},
		{[]string{"gc", "--dry-run"}, cli.ExitOK},
		{[]string{"fix-stuck", "app"}, cli.ExitOK},
		{[]string{"rollback", "app", "1", "--dry-run"}, cli.ExitOK},
		{[]string{"rollback", "app", "1", "--yes"}, cli.ExitRefused},
		{[]string{"uninstall", "app", "--yes"}, cli.ExitRefused},
		{[]string{"delete-revision", "app", "1", "--yes", "--force"}, cli.ExitRefused},
		{[]string{"gc", "--yes", "--min-age", "0"}, cli.ExitRefused},
		{[]string{"fix-stuck", "app", "--mark-failed", "--yes"}, cli.ExitRefused},
		{[]string{"fix-stuck", "app", "--delete-pending", "--yes"}, cli.ExitRefused},
		{[]string{"prune", "app", "--keep", "1", "--dry-run"}, cli.ExitOK},
		{[]string{"prune", "app", "--keep", "1", "--yes"}, cli.ExitRefused},
	} {
		r := pe.run(append(tc.args, "--read-only")...)
		mustCode(t, r, tc.code)
		if tc.code == cli.ExitRefused && !strings.Contains(r.stderr, "--read-only") {
			t.Errorf("%v: %s", tc.args, r)
		}
	}
	if m := p.Mutating(); len(m) != 0 {
		t.Errorf("--read-only let %d mutating requests reach the server: %v", len(m), m)
	}
	t.Logf("--read-only: %d requests reached the server, none mutating", p.Count())
}
