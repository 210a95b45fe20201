package cli_test

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/revdiff"
)

// appChart is a Deployment, a Service, a ConfigMap and a Secret: the chart of
// issue 12's proof.
func appChart() *chart.Chart {
	tpl := func(name, body string) *chart.File { return &chart.File{Name: "templates/" + name, Data: []byte(body)} }
	return &chart.Chart{
		Metadata: &chart.Metadata{Name: "app", Version: "1.0.0", APIVersion: "v2"},
		Values:   map[string]interface{}{"password": "hunter2-original"},
		Templates: []*chart.File{
			tpl("deploy.yaml", `apiVersion: apps/v1
kind: Deployment
metadata: {name: {{ .Release.Name }}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports: [{containerPort: 80}]
        resources: {limits: {cpu: 500m, memory: 256Mi}}
`),
			tpl("svc.yaml", `apiVersion: v1
kind: Service
metadata: {name: {{ .Release.Name }}}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 80}]
`),
			tpl("cm.yaml", `apiVersion: v1
kind: ConfigMap
metadata: {name: {{ .Release.Name }}-config}
data: {color: blue}
`),
			tpl("secret.yaml", `apiVersion: v1
kind: Secret
metadata: {name: {{ .Release.Name }}-db}
stringData: {password: {{ .Values.password | quote }}}
`),
		},
	}
}

// installApp installs appChart as release name through d.
func (e *env) installApp(name string, d driver.Driver) {
	e.t.Helper()
	in := action.NewInstall(e.actionConfigIn(d, e.ns))
	in.ReleaseName, in.Namespace = name, e.ns
	if _, err := in.Run(appChart(), nil); err != nil {
		e.t.Fatalf("install %s: %v", name, err)
	}
}

// TestDriftCLI: an untouched install has no drift (exit 0); each change made
// behind Helm's back is then found, one at a time, with exit 1 and the object
// and field named.
func TestDriftCLI(t *testing.T) {
	e := newEnv(t)
	e.installApp("shop", driverFor(byChunkview, e.ns))
	ctx := t.Context()
	cs := cluster.Client
	r := e.run("drift", "shop")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stdout, "No drift.") || !strings.Contains(r.stdout, "4 in sync") {
		t.Fatalf("untouched install: %s", r)
	}

	find := func(key, field string, args ...string) result {
		t.Helper()
		r := e.run(append([]string{"drift", "shop"}, args...)...)
		mustCode(t, r, cli.ExitDrift)
		var d revdiff.Drift
		rj := e.run(append([]string{"drift", "shop", "-o", "json"}, args...)...)
		mustCode(t, rj, cli.ExitDrift)
		decode(t, rj, &d)
		var found []string
		for _, o := range d.Objects {
			if o.State == revdiff.InSync {
				continue
			}
			found = append(found, o.Key+":"+o.State.String())
			for _, f := range o.Fields {
				found = append(found, o.Key+":"+f.Path)
			}
		}
		want := []string{key}
		if field != "" {
			want = append(want, field)
		}
		joined := strings.Join(found, " ")
		for _, w := range want {
			if !strings.Contains(joined, w) || !strings.Contains(r.stdout, strings.Split(w, ":")[0]) {
				t.Fatalf("want %q in the drift found, got %q\n%s", w, joined, r)
			}
		}
		return r
	}
	key := func(kind, name string) string { return kind + "/" + e.ns + "/" + name }

	// Changed ConfigMap data.
	patch := func(kind, name, body string) {
		t.Helper()
		var err error
		p := []byte(body)
		switch kind {
		case "cm":
			_, err = cs.CoreV1().ConfigMaps(e.ns).Patch(ctx, name, types.MergePatchType, p, metav1.PatchOptions{FieldManager: "kubectl-edit"})
		case "secret":
			_, err = cs.CoreV1().Secrets(e.ns).Patch(ctx, name, types.MergePatchType, p, metav1.PatchOptions{FieldManager: "kubectl-edit"})
		case "deploy":
			_, err = cs.AppsV1().Deployments(e.ns).Patch(ctx, name, types.MergePatchType, p, metav1.PatchOptions{FieldManager: "kubectl"})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	patch("cm", "shop-config", `{"data":{"color":"red"}}`)
	r = find("ConfigMap/"+e.ns+"/shop-config", key("ConfigMap", "shop-config")+":data.color")
	if !strings.Contains(r.stdout, "-blue") || !strings.Contains(r.stdout, "+red") || !strings.Contains(r.stdout, "kubectl-edit (Update)") {
		t.Errorf("ConfigMap drift text:\n%s", r.stdout)
	}
	patch("cm", "shop-config", `{"data":{"color":"blue"}}`)
	mustCode(t, e.run("drift", "shop"), cli.ExitOK)

	// Scaled replicas.
	patch("deploy", "shop", `{"spec":{"replicas":7}}`)
	find("Deployment/"+e.ns+"/shop", key("Deployment", "shop")+":spec.replicas")
	patch("deploy", "shop", `{"spec":{"replicas":2}}`)
	mustCode(t, e.run("drift", "shop"), cli.ExitOK)

	// A rotated Secret value: masked, then revealed.
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	patch("secret", "shop-db", `{"data":{"password":"`+b64("hunter2-rotated")+`"}}`)
	r = find("Secret/"+e.ns+"/shop-db", key("Secret", "shop-db")+":data.password")
	if strings.Contains(r.stdout, "hunter2") || !strings.Contains(r.stdout, revdiff.MaskPrefix) {
		t.Errorf("masked drift shows the secret:\n%s", r.stdout)
	}
	r = find("Secret/"+e.ns+"/shop-db", key("Secret", "shop-db")+":data.password", "--reveal")
	if !strings.Contains(r.stdout, "-hunter2-original") || !strings.Contains(r.stdout, "+hunter2-rotated") {
		t.Errorf("revealed drift:\n%s", r.stdout)
	}
	patch("secret", "shop-db", `{"data":{"password":"`+b64("hunter2-original")+`"}}`)
	mustCode(t, e.run("drift", "shop"), cli.ExitOK)

	// A deleted Service is missing.
	if err := cs.CoreV1().Services(e.ns).Delete(ctx, "shop", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	r = find("Service/"+e.ns+"/shop", key("Service", "shop")+":missing")
	if !strings.Contains(r.stdout, "- Service/"+e.ns+"/shop (missing)") {
		t.Errorf("missing Service:\n%s", r.stdout)
	}

	// Errors are above 1.
	mustCode(t, e.run("drift", "nope"), cli.ExitNotFound)
	mustCode(t, e.run("drift", "shop", "--revision", "9"), cli.ExitNotFound)
	mustCode(t, e.run("drift"), cli.ExitUsage)
}

// TestDriftCLIUnreadable: a user who may not read Secrets sees the release's
// Secret reported unreadable, with the check to run; the rest is compared, and
// the exit code says the check is incomplete (6), not in sync (0).
func TestDriftCLIUnreadable(t *testing.T) {
	e := newEnv(t)
	// Helm's ConfigMaps store: the user can read the records, not the Secrets.
	e.installApp("shop", driver.NewConfigMaps(cluster.Client.CoreV1().ConfigMaps(e.ns)))
	ue := userEnv(t, e, "drift-no-secrets", e.ns)
	bind(t, e.ns, "drift-no-secrets", "drift-no-secrets",
		rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps", "services"}, Verbs: []string{"get", "list"}},
		rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get", "list"}},
	)
	// The binding takes a moment to apply: until then, the records cannot be
	// listed either (also exit 6, with nothing on stdout).
	var r result
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if r = ue.run("drift", "shop", "--driver", "configmap"); r.stdout != "" {
			break
		}
	}
	mustCode(t, r, cli.ExitDriftIncomplete)
	for _, want := range []string{"? Secret/" + e.ns + "/shop-db (unreadable)", "kubectl auth can-i get secrets -n " + e.ns, "No drift in what could be read.", "3 in sync"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("want %q in:\n%s", want, r)
		}
	}
	// Drift in what it can read is still drift.
	if _, err := cluster.Client.CoreV1().ConfigMaps(e.ns).Patch(t.Context(), "shop-config", types.MergePatchType, []byte(`{"data":{"color":"red"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	mustCode(t, ue.run("drift", "shop", "--driver", "configmap"), cli.ExitDrift)
}
