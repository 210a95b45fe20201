package revdiff

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/release"
	"sigs.k8s.io/yaml"
)

// obj decodes YAML as CompareObject gets it: the manifest through sigs.k8s.io/yaml
// (float64 numbers), the live object through JSON with int64 numbers, as the
// dynamic client decodes.
func manifestObj(t *testing.T, y string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(y), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func liveObj(t *testing.T, y string) map[string]any {
	t.Helper()
	js, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(js)))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return toInt64(m).(map[string]any)
}

func toInt64(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = toInt64(e)
		}
	case []any:
		for i, e := range t {
			t[i] = toInt64(e)
		}
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	}
	return v
}

func paths(ds []FieldDiff) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Path.String()
	}
	return out
}

func TestCompareObject(t *testing.T) {
	const deploy = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: %s
  paused: false
  template:
    metadata:
      labels: {app: web}
    spec:
      hostNetwork: false
      containers:
      - name: web
        image: nginx:1.27
        imagePullPolicy: ""
        args: [--port, "8080"]
        ports:
        - containerPort: 8080
          name: http
        env:
        - {name: A, value: "1"}
        - {name: B, value: "2"}
        resources:
          limits: {cpu: 1000m, memory: 1024Mi}
          requests: {cpu: 0.5}
        volumeMounts:
        - {name: data, mountPath: /data, readOnly: false}
        securityContext: {}
      volumes:
      - name: data
        emptyDir: {}
`
	const liveDeploy = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  uid: 1234
  resourceVersion: "99"
  generation: 3
  labels: {app: web}
  annotations: {deployment.kubernetes.io/revision: "2"}
spec:
  replicas: %s
  progressDeadlineSeconds: 600
  template:
    metadata:
      creationTimestamp: null
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: %s
        imagePullPolicy: IfNotPresent
        args: [--port, "8080"]
        ports:
        - {containerPort: 8080, name: http, protocol: TCP}
        env:
        - {name: B, value: "2"}
        - {name: A, value: "1"}
        resources:
          limits: {cpu: "1", memory: 1Gi}
          requests: {cpu: 500m}
        volumeMounts:
        - {name: data, mountPath: /data}
        terminationMessagePath: /dev/termination-log
        securityContext: {}
      volumes:
      - name: data
        emptyDir: {}
      restartPolicy: Always
status:
  replicas: 0
`
	sprintf := func(f string, a ...any) string {
		for _, x := range a {
			f = strings.Replace(f, "%s", x.(string), 1)
		}
		return f
	}
	cases := []struct {
		name     string
		manifest string
		live     string
		want     []string
	}{
		{"deployment untouched, defaults and normal forms", sprintf(deploy, "3"), sprintf(liveDeploy, "3", "nginx:1.27"), nil},
		{"zero replicas", sprintf(deploy, "0"), sprintf(liveDeploy, "0", "nginx:1.27"), nil},
		{"scaled", sprintf(deploy, "3"), sprintf(liveDeploy, "5", "nginx:1.27"), []string{"spec.replicas"}},
		{"image changed", sprintf(deploy, "3"), sprintf(liveDeploy, "3", "nginx:1.28"),
			[]string{"spec.template.spec.containers[name=web].image"}},
		{"configmap data changed, added and removed",
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: x, b: y, e: \"\"}\n",
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: z, c: w, e: \"\"}\n",
			[]string{"data.a", "data.b", "data.c"}},
		{"configmap number-like data is text", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {num: \"1.0\"}\n",
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {num: \"1\"}\n", []string{"data.num"}},
		{"secret stringData against data", "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {p: hunter2}\ndata: {u: YXBw}\n",
			"apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {p: aHVudGVyMg==, u: YXBw}\ntype: Opaque\n", nil},
		{"secret rotated", "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {p: hunter2}\n",
			"apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {p: aHVudGVyMw==}\n", []string{"data.p"}},
		{"nodeport service", "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  type: NodePort\n  selector: {app: web}\n  ports:\n  - {port: 80, targetPort: http, nodePort: 30080}\n",
			"apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  type: NodePort\n  clusterIP: 10.0.0.4\n  clusterIPs: [10.0.0.4]\n  selector: {app: web}\n  ports:\n  - {port: 80, protocol: TCP, targetPort: http, nodePort: 30080}\n  sessionAffinity: None\n", nil},
		{"service port added live", "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  ports:\n  - {port: 80}\n",
			"apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  ports:\n  - {port: 80, protocol: TCP}\n  - {port: 81, protocol: TCP}\n", []string{"spec.ports[port=81]"}},
		{"rbac rules by position", "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: r}\nrules:\n- apiGroups: [\"\"]\n  resources: [pods]\n  verbs: [get, list]\n",
			"apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: r}\nrules:\n- apiGroups: [\"\"]\n  resources: [pods]\n  verbs: [get, list, delete]\n", []string{"rules[0].verbs"}},
		{"false booleans and true live", "kind: CronJob\nspec: {suspend: false, schedule: \"*/5 * * * *\"}\n",
			"kind: CronJob\nspec: {suspend: true, schedule: \"*/5 * * * *\", concurrencyPolicy: Allow}\n", []string{"spec.suspend"}},
		{"label removed live", "kind: ConfigMap\nmetadata: {name: c, labels: {a: b}, annotations: {x: y}}\n",
			"kind: ConfigMap\nmetadata: {name: c, annotations: {x: y, meta.helm.sh/release-name: r}}\n", []string{"metadata.labels"}},
		{"octal mode and quantities", "kind: Pod\nspec:\n  volumes:\n  - name: v\n    secret: {secretName: s, defaultMode: 0644}\n    emptyDir: {sizeLimit: 1024Mi}\n",
			"kind: Pod\nspec:\n  volumes:\n  - name: v\n    secret: {secretName: s, defaultMode: 420}\n    emptyDir: {sizeLimit: 1Gi}\n", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := paths(CompareObject(manifestObj(t, c.manifest), liveObj(t, c.live)))
			if !slices.Equal(got, c.want) {
				t.Errorf("got drift %q, want %q", got, c.want)
			}
		})
	}
}

func TestChangedBy(t *testing.T) {
	live := liveObj(t, `metadata:
  managedFields:
  - manager: helm
    operation: Update
    time: "2026-01-01T00:00:00Z"
    fieldsV1: {"f:data": {".": {}, "f:color": {}}}
  - manager: kubectl-edit
    operation: Update
    time: "2026-01-02T00:00:00Z"
    fieldsV1: {"f:data": {"f:color": {}}}
  - manager: kube-controller-manager
    operation: Update
    subresource: scale
    time: "2026-01-03T00:00:00Z"
    fieldsV1: {"f:spec": {"f:replicas": {}}}
  - manager: kubectl
    operation: Update
    time: "2026-01-04T00:00:00Z"
    fieldsV1: {"f:spec": {"f:template": {"f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {"f:image": {}}}}}}}
`)
	for _, c := range []struct {
		path FieldPath
		want []string
	}{
		{FieldPath{field("data"), field("color")}, []string{"kubectl-edit (Update)"}},
		{FieldPath{field("spec"), field("replicas")}, []string{"kube-controller-manager (Update /scale)"}},
		{FieldPath{field("spec"), field("template"), field("spec"), field("containers"), {Key: map[string]any{"name": "web"}}, field("image")}, []string{"kubectl (Update)"}},
		{FieldPath{field("data"), field("other")}, nil},
	} {
		if got := ChangedBy(live, c.path); !slices.Equal(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.path, got, c.want)
		}
	}
}

func TestCompareLiveMasks(t *testing.T) {
	SetMaskKey([]byte("test"))
	defer SetMaskKey(testKey)
	rel := &release.Release{Name: "app", Namespace: "ns", Version: 2, Manifest: `apiVersion: v1
kind: Secret
metadata: {name: app-db, namespace: ns}
stringData: {password: hunter2-old}
---
apiVersion: v1
kind: Service
metadata: {name: app, namespace: ns}
spec: {ports: [{port: 80}]}
`}
	res := ReleaseResources(rel.Manifest, rel.Namespace)
	var secret, svc Resource
	for _, r := range res {
		if r.Kind == "Secret" {
			secret = r
		} else {
			svc = r
		}
	}
	objs := []LiveObject{
		{Resource: secret, APIVersion: "v1", Live: liveObj(t, "kind: Secret\nmetadata: {name: app-db}\ndata: {password: aHVudGVyMi1uZXc=}\n")},
		{Resource: svc, APIVersion: "v1"},
		{Resource: Resource{Key: "ConfigMap/ns/old", Kind: "ConfigMap", Namespace: "ns", Name: "old"}, APIVersion: "v1", Extra: true},
		{Resource: Resource{Key: "Secret/ns/x", Kind: "Secret", Namespace: "ns", Name: "x"}, Unreadable: "forbidden"},
	}
	for _, reveal := range []bool{false, true} {
		d, err := CompareLive(rel, objs, DriftOptions{Reveal: reveal})
		if err != nil {
			t.Fatal(err)
		}
		text := d.Text()
		if !d.Drifted() || d.Count(Drifted) != 1 || d.Count(Missing) != 1 || d.Count(Extra) != 1 || d.Count(Unreadable) != 1 {
			t.Fatalf("counts wrong:\n%s", text)
		}
		leaked := strings.Contains(text, "hunter2-new") || strings.Contains(text, "hunter2-old")
		if leaked != reveal {
			t.Errorf("reveal=%v, secret shown=%v:\n%s", reveal, leaked, text)
		}
		for _, want := range []string{"~ Secret/ns/app-db (changed): data.password", "- Service/ns/app (missing)", "+ ConfigMap/ns/old (extra)", "? Secret/ns/x (unreadable): forbidden"} {
			if !strings.Contains(text, want) {
				t.Errorf("missing %q in:\n%s", want, text)
			}
		}
	}
}
