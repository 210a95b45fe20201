package kube_test

import (
	"encoding/base64"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/storage"
)

// kitchenChart deploys one of most kinds a chart holds, each with the fields
// that tempt a comparison into false drift: probes, a securityContext,
// volumes, resources written unlike the server writes them, a NodePort
// Service, an Ingress, a StatefulSet with a claim template, a CronJob, RBAC
// objects, and zero values (replicas: 0, false booleans).
func kitchenChart() *chart.Chart {
	tpl := func(name, body string) *chart.File { return &chart.File{Name: "templates/" + name, Data: []byte(body)} }
	return &chart.Chart{
		Metadata: &chart.Metadata{Name: "kitchen", Version: "1.0.0", APIVersion: "v2"},
		Values:   map[string]interface{}{"color": "blue", "password": "hunter2-original"},
		Templates: []*chart.File{
			tpl("config.yaml", `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
  labels: {app: kitchen}
data:
  color: {{ .Values.color | quote }}
  empty: ""
`),
			tpl("secret.yaml", `apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-db
type: Opaque
stringData:
  password: {{ .Values.password | quote }}
data:
  user: {{ "app" | b64enc }}
`),
			tpl("deploy.yaml", `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  replicas: 2
  paused: false
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      hostNetwork: false
      automountServiceAccountToken: false
      securityContext: {runAsNonRoot: true, runAsUser: 1000, fsGroup: 2000}
      containers:
      - name: web
        image: nginx:1.27
        args: ["--port", "8080"]
        ports:
        - {name: http, containerPort: 8080}
        env:
        - {name: MODE, value: "prod"}
        - name: DB_PASSWORD
          valueFrom: {secretKeyRef: {name: {{ .Release.Name }}-db, key: password}}
        resources:
          limits: {cpu: 1000m, memory: 1024Mi}
          requests: {cpu: 0.25, memory: 128Mi}
        livenessProbe:
          httpGet: {path: /healthz, port: http}
          initialDelaySeconds: 5
        readinessProbe:
          tcpSocket: {port: 8080}
        securityContext:
          allowPrivilegeEscalation: false
          readOnlyRootFilesystem: true
          capabilities: {drop: [ALL]}
        volumeMounts:
        - {name: config, mountPath: /etc/app, readOnly: true}
        - {name: tmp, mountPath: /tmp}
      volumes:
      - name: config
        configMap: {name: {{ .Release.Name }}-config, defaultMode: 0644}
      - name: tmp
        emptyDir: {sizeLimit: 64Mi}
`),
			tpl("svc.yaml", `apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-web
spec:
  selector: {app: web}
  ports:
  - {name: http, port: 80, targetPort: http}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-nodeport
spec:
  type: NodePort
  selector: {app: web}
  ports:
  - {port: 8080, targetPort: 8080, protocol: TCP}
`),
			tpl("ingress.yaml", `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {{ .Release.Name }}
spec:
  rules:
  - host: kitchen.example.com
    http:
      paths:
      - path: /
        pathType: Prefix
        backend:
          service: {name: {{ .Release.Name }}-web, port: {number: 80}}
`),
			tpl("sts.yaml", `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: {{ .Release.Name }}-db
spec:
  replicas: 0
  serviceName: {{ .Release.Name }}-web
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
      - name: db
        image: postgres:16
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
`),
			tpl("cron.yaml", `apiVersion: batch/v1
kind: CronJob
metadata:
  name: {{ .Release.Name }}-backup
spec:
  schedule: "*/30 * * * *"
  suspend: false
  successfulJobsHistoryLimit: 1
  jobTemplate:
    spec:
      backoffLimit: 0
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: backup
            image: busybox
            command: ["sh", "-c", "echo backup"]
`),
			tpl("rbac.yaml", `apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ .Release.Name }}
automountServiceAccountToken: false
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ .Release.Name }}
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ .Release.Name }}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: {{ .Release.Name }}}
subjects:
- {kind: ServiceAccount, name: {{ .Release.Name }}, namespace: {{ .Release.Namespace }}}
`),
		},
	}
}

// installKitchen installs the kitchen chart as release name in ns with Helm's
// install action and a real kube client.
func installKitchen(t *testing.T, ns, name string, d driver.Driver) {
	t.Helper()
	cfg := helmConfig(t, adminKubeconfig(t, ns), ns, d)
	in := action.NewInstall(cfg)
	in.ReleaseName, in.Namespace = name, ns
	if _, err := in.Run(kitchenChart(), nil); err != nil {
		t.Fatalf("helm install %s: %v", name, err)
	}
}

// drifted returns the objects not in sync, by key, with their field paths.
func drifted(d *revdiff.Drift) map[string]string {
	out := map[string]string{}
	for _, o := range d.Objects {
		if o.State == revdiff.InSync {
			continue
		}
		var paths []string
		for _, f := range o.Fields {
			paths = append(paths, f.Path)
		}
		out[o.Key] = o.State.String() + " " + strings.Join(paths, ",")
	}
	return out
}

func TestDriftKitchen(t *testing.T) {
	ctx := t.Context()
	ns := cluster.Namespace(t)
	installKitchen(t, ns, "k", chunkviewDriver(ns, storage.HelmOwner, 0))
	var wire wireLog
	c := connect(t, adminKubeconfig(t, ns), nil, func(o *kube.Options) { o.WrapConfig = wire.install })
	check := func(want map[string]string, opts live.DriftOptions) *revdiff.Drift {
		t.Helper()
		wire.Reset()
		d, err := live.Drift(ctx, c, ns, "k", 0, opts)
		if err != nil {
			t.Fatalf("Drift: %v", err)
		}
		got := drifted(d)
		if len(got) != len(want) {
			t.Fatalf("drift: got %v, want %v\n%s", got, want, d.Text())
		}
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("drift of %s: got %q, want %q\n%s", k, got[k], v, d.Text())
			}
		}
		return d
	}
	d := check(nil, live.DriftOptions{})
	if d.Revision != 1 || d.Count(revdiff.InSync) != 11 {
		t.Fatalf("untouched install: revision %d, %d in sync:\n%s", d.Revision, d.Count(revdiff.InSync), d.Text())
	}
	t.Logf("requests of a drift check: %d (%v)", len(wire.Requests()), wire.Requests())

	cs := cluster.Client
	key := func(kind, name string) string { return kind + "/" + ns + "/" + name }
	byKubectl := metav1.UpdateOptions{FieldManager: "kubectl-edit"}

	// Changed ConfigMap data, found with who changed it.
	cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "k-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["color"] = "red"
	if cm, err = cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, byKubectl); err != nil {
		t.Fatal(err)
	}
	d = check(map[string]string{key("ConfigMap", "k-config"): "changed data.color"}, live.DriftOptions{})
	if f := d.Objects[0].Fields[0]; f.Manifest != "blue" || f.Live != "red" || strings.Join(f.ChangedBy, ",") != "kubectl-edit (Update)" {
		t.Errorf("color drift: %+v", f)
	}
	cm.Data["color"] = "blue"
	cm, err = cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, byKubectl)
	if err != nil {
		t.Fatal(err)
	}
	check(nil, live.DriftOptions{})

	// Scaled replicas, through the scale subresource as kubectl scale does.
	scale := func(n int32) {
		t.Helper()
		s, err := cs.AppsV1().Deployments(ns).GetScale(ctx, "k-web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s.Spec.Replicas = n
		if _, err := cs.AppsV1().Deployments(ns).UpdateScale(ctx, "k-web", s, metav1.UpdateOptions{FieldManager: "kubectl"}); err != nil {
			t.Fatal(err)
		}
	}
	scale(5)
	d = check(map[string]string{key("Deployment", "k-web"): "changed spec.replicas"}, live.DriftOptions{})
	if f := d.Objects[0].Fields[0]; f.Manifest != "2" || f.Live != "5" || !strings.HasPrefix(strings.Join(f.ChangedBy, ","), "kubectl (Update") {
		t.Errorf("replicas drift: %+v", f)
	}
	scale(2)
	check(nil, live.DriftOptions{})

	// A rotated Secret value: masked unless revealed.
	patch := `{"data":{"password":"` + b64("hunter2-rotated") + `"}}`
	if _, err := cs.CoreV1().Secrets(ns).Patch(ctx, "k-db", types.MergePatchType, []byte(patch), metav1.PatchOptions{FieldManager: "kubectl-patch"}); err != nil {
		t.Fatal(err)
	}
	d = check(map[string]string{key("Secret", "k-db"): "changed data.password"}, live.DriftOptions{})
	if text := d.Text(); strings.Contains(text, "hunter2") || !strings.Contains(text, revdiff.MaskPrefix) {
		t.Errorf("masked drift shows the secret or no token:\n%s", text)
	}
	d = check(map[string]string{key("Secret", "k-db"): "changed data.password"}, live.DriftOptions{Reveal: true})
	if f := d.Objects[0].Fields[0]; f.Manifest != "hunter2-original" || f.Live != "hunter2-rotated" {
		t.Errorf("revealed drift: %+v", f)
	}
	patch = `{"data":{"password":"` + b64("hunter2-original") + `"}}`
	if _, err := cs.CoreV1().Secrets(ns).Patch(ctx, "k-db", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}

	// A deleted Service is missing; an object labelled as the release's is extra.
	if err := cs.CoreV1().Services(ns).Delete(ctx, "k-nodeport", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	stray := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "k-stray",
		Labels:      map[string]string{"app.kubernetes.io/managed-by": "Helm"},
		Annotations: map[string]string{"meta.helm.sh/release-name": "k", "meta.helm.sh/release-namespace": ns}}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, stray, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	check(map[string]string{key("Service", "k-nodeport"): "missing ", key("ConfigMap", "k-stray"): "extra "}, live.DriftOptions{})
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// TestDriftUnreadable: a user who may not read Secrets sees the release's
// Secret reported unreadable, with the check to run, and the rest compared.
func TestDriftUnreadable(t *testing.T) {
	ctx := t.Context()
	ns := cluster.Namespace(t)
	// Helm's ConfigMaps store: the user may read the records, not the Secrets.
	installKitchen(t, ns, "k", driver.NewConfigMaps(cluster.Client.CoreV1().ConfigMaps(ns)))
	user, err := cluster.Env.AddUser(envtest.User{Name: "drift-no-secrets", Groups: []string{"drift"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rules := []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps", "services", "serviceaccounts"}, Verbs: []string{"get", "list"}},
		{APIGroups: []string{"apps", "batch", "networking.k8s.io", "rbac.authorization.k8s.io"}, Resources: []string{"*"}, Verbs: []string{"get", "list"}},
	}
	grant(t, ns, "drift-no-secrets", "drift-no-secrets", rules...)
	c := connect(t, writeKubeconfig(t, user.Config(), ns), []string{"--driver", "configmap"}, nil)
	d, err := live.Drift(ctx, c, ns, "k", 0, live.DriftOptions{})
	if err != nil {
		t.Fatalf("Drift as a user who may not read Secrets: %v", err)
	}
	got := drifted(d)
	if len(got) != 1 || got["Secret/"+ns+"/k-db"] != "unreadable " || d.Drifted() {
		t.Fatalf("got %v:\n%s", got, d.Text())
	}
	mustContain(t, d.Text(), "kubectl auth can-i get secrets -n "+ns, "extra objects not looked for")
}
