package cli_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/demo"
)

// demoStatus is the part of status -o json these tests read.
type demoStatus struct {
	Revision  int `json:"revision"`
	Resources []struct {
		Kind, Name, Status, Message string
	} `json:"resources"`
	Hooks []struct {
		Kind, Name string
		Job        *struct {
			Status string `json:"status"`
			Pods   []struct {
				Name  string `json:"name"`
				Phase string `json:"phase"`
			} `json:"pods"`
			Log *struct {
				Pod    string   `json:"pod"`
				Lines  []string `json:"lines"`
				Masked bool     `json:"masked"`
			} `json:"log"`
		} `json:"job"`
	} `json:"hooks"`
	Events []struct {
		Object, Reason string
	} `json:"events"`
}

func statusOf(t *testing.T, r result) demoStatus {
	t.Helper()
	var st demoStatus
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		t.Fatalf("status -o json: %v\n%s", err, r)
	}
	return st
}

func resourceStatus(st demoStatus, kind, name string) string {
	for _, r := range st.Resources {
		if r.Kind == kind && r.Name == name {
			return r.Status
		}
	}
	return "(absent)"
}

// TestStatusDemo: the demo cluster runs the samples' objects, and status judges
// them with kstatus: podinfo's are all Current (exit 0); web-frontend's
// Deployment, whose rollout is stuck behind crashing Pods, is InProgress (exit
// 1) with the kubelet's BackOff events of its Pods; the pending upgrade of
// payments-api shows its migration hook's Job Failed, its failed Pods and the
// end of their log, the release's database password masked in it.
func TestStatusDemo(t *testing.T) {
	t.Parallel()
	r := runDemo(t, &cli.App{}, "status", "podinfo", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	if st := statusOf(t, r); len(st.Resources) < 4 || resourceStatus(st, "Deployment", "podinfo") != "Current" {
		t.Errorf("podinfo: %+v", st.Resources)
	}

	r = runDemo(t, &cli.App{}, "status", demo.StuckRelease, "-o", "json")
	mustCode(t, r, cli.ExitNotCurrent)
	st := statusOf(t, r)
	if got := resourceStatus(st, "Deployment", demo.StuckRelease); got != "InProgress" {
		t.Errorf("the stuck Deployment is %s, want InProgress: %+v", got, st.Resources)
	}
	if got := resourceStatus(st, "Service", demo.StuckRelease); got != "Current" {
		t.Errorf("the Service beside it is %s, want Current", got)
	}
	backoffs := 0
	for _, e := range st.Events {
		if e.Reason == "BackOff" && strings.HasPrefix(e.Object, "Pod/"+demo.StuckRelease+"-") {
			backoffs++
		}
	}
	if backoffs != 2 {
		t.Errorf("want the BackOff events of the two crashing Pods, got %+v", st.Events)
	}

	r = runDemo(t, &cli.App{}, "status", demo.FailedHookRelease, "--revision", "5", "-o", "json")
	mustCode(t, r, cli.ExitOK) // the objects of the pending revision are those of the deployed one, Current
	st = statusOf(t, r)
	var job *struct{ ok bool }
	for _, h := range st.Hooks {
		if h.Kind != "Job" || h.Job == nil {
			continue
		}
		job = &struct{ ok bool }{}
		if h.Job.Status != "Failed" || len(h.Job.Pods) != 3 || h.Job.Log == nil {
			t.Fatalf("hook %s: %+v, want Failed with three Pods and a log", h.Name, h.Job)
		}
		for _, p := range h.Job.Pods {
			if p.Phase != "Failed" {
				t.Errorf("hook Pod %s is %s, want Failed", p.Name, p.Phase)
			}
		}
		log := strings.Join(h.Job.Log.Lines, "\n")
		if !strings.Contains(log, `relation "cards" already exists`) || !h.Job.Log.Masked {
			t.Errorf("the hook's log: %q (masked %v)", log, h.Job.Log.Masked)
		}
	}
	if job == nil {
		t.Fatalf("no hook Job read: %+v", st.Hooks)
	}
	if strings.Contains(r.stdout, "r0tated-2q4W!zT8") {
		t.Errorf("the database password leaked from the hook's log:\n%s", r.stdout)
	}
}

// TestDriftDemo: drift finds the ConfigMap of fraud-model edited by hand, the
// one field that differs, and nothing in podinfo, whose objects are as its
// manifest says.
func TestDriftDemo(t *testing.T) {
	t.Parallel()
	r := runDemo(t, &cli.App{}, "drift", demo.DriftedRelease, "-o", "json")
	mustCode(t, r, cli.ExitDrift)
	var d struct {
		Objects []struct {
			Key, State string
			Fields     []struct {
				Path           string
				Manifest, Live any
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("drift -o json: %v\n%s", err, r)
	}
	var changed []string
	for _, o := range d.Objects {
		if o.State != "in-sync" {
			changed = append(changed, o.Key)
			if len(o.Fields) != 1 || o.Fields[0].Path != "data.THRESHOLD" || o.Fields[0].Manifest != "0.78" || o.Fields[0].Live != "0.70" {
				t.Errorf("%s: %+v, want data.THRESHOLD 0.78 → 0.70", o.Key, o.Fields)
			}
		}
	}
	if !slices.Equal(changed, []string{"ConfigMap/payments/fraud-model"}) {
		t.Errorf("drifted: %v, want the fraud-model ConfigMap alone", changed)
	}
	mustCode(t, runDemo(t, &cli.App{}, "drift", "podinfo"), cli.ExitOK)
}

// TestDemoControllersRefuse: the demo serves the controllers of its releases,
// so a rollback of one that an active controller reconciles is refused (exit 5,
// as the README promises), naming the controller: OLMv1's ClusterExtension for
// cert-manager under --profile olmv1, the Flux HelmRelease in flux-system for
// ingress-nginx (whose history names it). --ignore-controller goes ahead.
func TestDemoControllersRefuse(t *testing.T) {
	t.Parallel()
	r := runDemo(t, &cli.App{}, "--profile", "olmv1", "rollback", "cert-manager", "2", "--yes")
	mustCode(t, r, cli.ExitRefused)
	if !strings.Contains(r.stderr, "ClusterExtension/cert-manager") || !strings.Contains(r.stderr, "Nothing was changed") {
		t.Errorf("OLMv1 rollback: %s", r)
	}
	r = runDemo(t, &cli.App{}, "rollback", demo.ControlledRelease, "2", "--yes")
	mustCode(t, r, cli.ExitRefused)
	if !strings.Contains(r.stderr, "HelmRelease/flux-system/"+demo.ControlledRelease) {
		t.Errorf("Flux rollback: %s", r)
	}
	r = runDemo(t, &cli.App{}, "history", demo.ControlledRelease, "-o", "json")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stdout, `"controlledBy": "HelmRelease/flux-system/`+demo.ControlledRelease+`"`) {
		t.Errorf("history names no controller: %s", r)
	}
	mustCode(t, runDemo(t, &cli.App{}, "--profile", "olmv1", "rollback", "cert-manager", "2", "--yes", "--ignore-controller"), cli.ExitOK)
}
