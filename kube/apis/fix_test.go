package apis

import (
	"errors"
	"strings"
	"testing"
)

func TestPlanFix(t *testing.T) {
	s := cluster137()
	// Each case's manifest, and what the fix must write: by hand, so that
	// the oracle is not the rewrite itself.
	for _, tc := range []struct {
		name, in, want string
		drop           bool
		changes        []string // "Ref→apiVersion"
		dropped        []string
		err            string
	}{
		{
			name: "each unserved version onto its successor, the rest byte for byte",
			in: "---\n# Source: shop/templates/pdb.yaml\napiVersion: policy/v1beta1 # was fine in 2021\nkind: PodDisruptionBudget\nmetadata:\n  name: shop\nspec:\n  minAvailable: 1\n" +
				"---\n# Source: shop/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep\ndata:\n  note: \"apiVersion: policy/v1beta1\"\n" +
				"---\n# Source: shop/templates/hpa.yaml\nkind: HorizontalPodAutoscaler\napiVersion: \"autoscaling/v2beta2\"\nmetadata: {name: shop}\n" +
				"---\n# Source: shop/templates/w.yaml\napiVersion: 'example.com/v1alpha1'\nkind: Widget\nmetadata:\n  name: w\n",
			want: "---\n# Source: shop/templates/pdb.yaml\napiVersion: policy/v1 # was fine in 2021\nkind: PodDisruptionBudget\nmetadata:\n  name: shop\nspec:\n  minAvailable: 1\n" +
				"---\n# Source: shop/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep\ndata:\n  note: \"apiVersion: policy/v1beta1\"\n" +
				"---\n# Source: shop/templates/hpa.yaml\nkind: HorizontalPodAutoscaler\napiVersion: \"autoscaling/v2\"\nmetadata: {name: shop}\n" +
				"---\n# Source: shop/templates/w.yaml\napiVersion: 'example.com/v2'\nkind: Widget\nmetadata:\n  name: w\n",
			changes: []string{"PodDisruptionBudget/shop→policy/v1", "HorizontalPodAutoscaler/shop→autoscaling/v2", "Widget/w→example.com/v2"},
		},
		{
			name:    "a JSON document and a List's items",
			in:      "{\"kind\":\"Ingress\",\"apiVersion\":\"extensions/v1beta1\",\"metadata\":{\"name\":\"é\"}}\n---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: batch/v1beta1\n  kind: CronJob\n  metadata: {name: n}\n",
			want:    "{\"kind\":\"Ingress\",\"apiVersion\":\"networking.k8s.io/v1\",\"metadata\":{\"name\":\"é\"}}\n---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: batch/v1\n  kind: CronJob\n  metadata: {name: n}\n",
			changes: []string{"Ingress/é→networking.k8s.io/v1", "CronJob/n→batch/v1"},
		},
		{
			name: "no successor: refused without --drop-unserved, naming it",
			in:   "---\napiVersion: policy/v1beta1\nkind: PodSecurityPolicy\nmetadata:\n  name: restricted\n---\napiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: shop\n",
			err:  "PodSecurityPolicy/restricted (policy/v1beta1): no served version replaces it; --drop-unserved removes them from the manifest",
		},
		{
			name:    "no successor, --drop-unserved: its document goes, separator and all",
			drop:    true,
			in:      "---\n# Source: a\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n# Source: psp\napiVersion: policy/v1beta1\nkind: PodSecurityPolicy\nmetadata:\n  name: restricted\nspec: {}\n---\n# Source: pdb\napiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: shop\n",
			want:    "---\n# Source: a\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n# Source: pdb\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: shop\n",
			changes: []string{"PodDisruptionBudget/shop→policy/v1"},
			dropped: []string{"PodSecurityPolicy/restricted"},
		},
		{
			name: "an apiVersion it cannot replace in place is refused, not re-serialised",
			in:   "apiVersion: !!str extensions/v1beta1\nkind: Deployment\nmetadata:\n  name: d\n",
			err:  "Deployment/d: its apiVersion is not written as a plain or quoted string",
		},
		{
			name: "an unreadable document is refused",
			in:   "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: x}\n---\nkind: [\n",
			err:  "document 2 cannot be read as YAML",
		},
		{
			name: "a List's item cannot be dropped alone",
			drop: true,
			in:   "apiVersion: v1\nkind: List\nitems:\n- apiVersion: policy/v1beta1\n  kind: PodSecurityPolicy\n  metadata: {name: p}\n",
			err:  "PodSecurityPolicy/p is an item of a List",
		},
		{
			name: "nothing unserved: nothing changes",
			in:   "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\napiVersion: metrics.k8s.io/v1beta1\nkind: PodMetrics\nmetadata: {name: m}\n",
			want: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\napiVersion: metrics.k8s.io/v1beta1\nkind: PodMetrics\nmetadata: {name: m}\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fix, err := PlanFix(Revision{Manifest: tc.in}, s, tc.drop)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want an error with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fix.Manifest != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", fix.Manifest, tc.want)
			}
			var changes, dropped []string
			for _, c := range fix.Changes {
				changes = append(changes, c.Ref()+"→"+c.To.APIVersion)
			}
			for _, d := range fix.Dropped {
				dropped = append(dropped, d.Ref())
			}
			if strings.Join(changes, ",") != strings.Join(tc.changes, ",") || strings.Join(dropped, ",") != strings.Join(tc.dropped, ",") {
				t.Errorf("changes %v dropped %v; want %v and %v", changes, dropped, tc.changes, tc.dropped)
			}
			if fix.Changed() != (len(tc.changes)+len(tc.dropped) > 0) {
				t.Error("Changed says whether anything is written")
			}
		})
	}
}

func TestPlanFixHooks(t *testing.T) {
	s := cluster137()
	rev := Revision{
		Manifest: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
		Hooks: []Hook{
			{Name: "backup", Manifest: "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: backup\n"},
			{Name: "psp", Manifest: "apiVersion: policy/v1beta1\nkind: PodSecurityPolicy\nmetadata:\n  name: hook-psp\n"},
			{Name: "job", Manifest: "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: job\n"},
		},
	}
	_, err := PlanFix(rev, s, false)
	var nse *NoSuccessorError
	if !errors.Is(err, ErrNoSuccessor) || !errors.As(err, &nse) || len(nse.Objects) != 1 || nse.Objects[0].Hook != "psp" {
		t.Fatalf("a hook's object with no successor is refused without --drop-unserved, named with its hook: %v", err)
	}
	fix, err := PlanFix(rev, s, true)
	if err != nil {
		t.Fatal(err)
	}
	want := []FixedHook{
		{Name: "backup", Manifest: "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: backup\n"},
		{Name: "psp", Manifest: "", Dropped: true},
		{Name: "job", Manifest: "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: job\n"},
	}
	if len(fix.Hooks) != len(want) {
		t.Fatalf("got %d hooks, want %d", len(fix.Hooks), len(want))
	}
	for i := range want {
		if fix.Hooks[i] != want[i] {
			t.Errorf("hook %d: got %+v, want %+v", i, fix.Hooks[i], want[i])
		}
	}
	if fix.Manifest != rev.Manifest {
		t.Error("a manifest with nothing unserved is kept as it is")
	}
}

func TestRewrite(t *testing.T) {
	text := "0123456789"
	for _, tc := range []struct {
		edits []edit
		want  string
		err   bool
	}{
		{nil, text, false},
		{[]edit{{span{2, 4}, "ab"}, {span{0, 1}, ""}}, "1ab456789", false},
		{[]edit{{span{8, 10}, "xyz"}}, "01234567xyz", false},
		{[]edit{{span{2, 5}, "a"}, {span{4, 6}, "b"}}, "", true},
		{[]edit{{span{9, 11}, "a"}}, "", true},
	} {
		got, err := rewrite(text, tc.edits)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("rewrite(%v) = %q, %v; want %q (error %v)", tc.edits, got, err, tc.want, tc.err)
		}
	}
}
