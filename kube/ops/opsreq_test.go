package ops_test

import (
	"testing"

	"helm.sh/helm/v3/pkg/release"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/storage"
)

// TestApplyRefusesMovedHelmRelease: a rollback or an uninstall of a release in
// Helm's own stores makes no listing of its own before Helm's (whose first
// listing, held to the plan, checks it), yet a release that moved on between
// plan and apply is refused as before: ErrChanged, saying what changed and
// that nothing was changed, and nothing changes.
func TestApplyRefusesMovedHelmRelease(t *testing.T) {
	const name = "moved"
	moves := []struct {
		name, want string
		move       func(t *testing.T, st helmStore, ns string)
	}{
		{"revision added", "revision 4 (deployed) was added", func(t *testing.T, st helmStore, ns string) {
			if err := st.driver(otherClient(t), ns, nil, nil).Create(storage.RecordKey(name, 4), makeRelease(name, ns, 4, release.StatusDeployed, 0)); err != nil {
				t.Fatal(err)
			}
		}},
		{"status rewritten", "revision 3 was rewritten (failed, was deployed)", func(t *testing.T, st helmStore, ns string) {
			rewrite(t, st.driver(otherClient(t), ns, nil, nil), name, 3, release.StatusFailed)
		}},
		{"record deleted", "revision 1 was deleted", func(t *testing.T, st helmStore, ns string) {
			if _, err := st.driver(otherClient(t), ns, nil, nil).Delete(storage.RecordKey(name, 1)); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, st := range helmStores {
		drv := kube.DriverSecret
		if st.resource == "configmaps" {
			drv = kube.DriverConfigMap
		}
		for _, op := range []string{kube.OpRollback, kube.OpUninstall} {
			for _, mv := range moves {
				t.Run(st.name+"/"+op+"/"+mv.name, func(t *testing.T) {
					ns := cluster.Namespace(t)
					seedHelm(t, st, ns, name)
					c := connect(t, adminKubeconfig(t, ns), []string{"-n", ns, "--driver", drv}, nil)
					var apply func() error
					if op == kube.OpRollback {
						p, err := planByName(t.Context(), c, ns, name, rollbackPlan(2, kube.DiffOptions{}))
						if err != nil {
							t.Fatal(err)
						}
						apply = func() error { return ops.NewRunner(c).Apply(t.Context(), p) }
					} else {
						p, err := planByName(t.Context(), c, ns, name, uninstallPlan(false))
						if err != nil {
							t.Fatal(err)
						}
						apply = func() error { return ops.NewRunner(c).Apply(t.Context(), p) }
					}
					mv.move(t, st, ns)
					before := snapshot(t, ns)
					mustBeChanged(t, apply(), mv.want, "Nothing was changed")
					if after := snapshot(t, ns); !sameSnapshot(before, after) {
						t.Errorf("a refused %s changed the cluster:\nbefore %v\nafter  %v", op, before, after)
					}
				})
			}
		}
	}
}

// TestRulesGrant: a SelfSubjectRulesReview's resource rules grant an access as
// RBAC does: its verb, group and resource each listed or "*", and no resource
// names (a rule naming objects grants those objects alone, not a list or a
// create).
func TestRulesGrant(t *testing.T) {
	secrets := schema.GroupResource{Resource: "secrets"}
	deploys := schema.GroupResource{Group: "apps", Resource: "deployments"}
	rule := func(verbs, groups, resources, names []string) authorizationv1.ResourceRule {
		return authorizationv1.ResourceRule{Verbs: verbs, APIGroups: groups, Resources: resources, ResourceNames: names}
	}
	one := func(s ...string) []string { return s }
	for _, tc := range []struct {
		name  string
		rules []authorizationv1.ResourceRule
		a     ops.Access
		want  bool
	}{
		{"listed", []authorizationv1.ResourceRule{rule(one("get", "delete"), one(""), one("secrets"), nil)}, ops.Access{Verb: "delete", Resource: secrets, Namespace: "a"}, true},
		{"other verb", []authorizationv1.ResourceRule{rule(one("get"), one(""), one("secrets"), nil)}, ops.Access{Verb: "delete", Resource: secrets, Namespace: "a"}, false},
		{"other group", []authorizationv1.ResourceRule{rule(one("patch"), one(""), one("deployments"), nil)}, ops.Access{Verb: "patch", Resource: deploys, Namespace: "a"}, false},
		{"other resource", []authorizationv1.ResourceRule{rule(one("get"), one(""), one("configmaps"), nil)}, ops.Access{Verb: "get", Resource: secrets, Namespace: "a"}, false},
		{"wildcards", []authorizationv1.ResourceRule{rule(one("*"), one("*"), one("*"), nil)}, ops.Access{Verb: "patch", Resource: deploys, Namespace: "a"}, true},
		{"named objects only", []authorizationv1.ResourceRule{rule(one("delete"), one(""), one("secrets"), one("sh.helm.release.v1.app.v1"))}, ops.Access{Verb: "delete", Resource: secrets, Namespace: "a"}, false},
		{"second rule", []authorizationv1.ResourceRule{rule(one("get"), one(""), one("secrets"), nil), rule(one("patch"), one("apps"), one("deployments"), nil)}, ops.Access{Verb: "patch", Resource: deploys, Namespace: "a"}, true},
	} {
		if got := ops.RulesGrant(tc.rules, tc.a); got != tc.want {
			t.Errorf("%s: rulesGrant = %v, want %v", tc.name, got, tc.want)
		}
	}
}
