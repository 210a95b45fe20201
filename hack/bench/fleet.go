package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
	helmtime "helm.sh/helm/v3/pkg/time"

	"github.com/chunkview/chunkview/storage"
)

// The fleet: the same releases stored twice, once by chunkview's driver (owner
// fleetOwner, namespaces fleet-NN) and once by Helm's own Secrets driver (owner helm,
// namespaces helm-NN) for the releases that fit there. A subset is stored a third
// time by helm-operator-plugins' driver (owner origOwner, namespace origNamespace):
// records without chunkview's summary annotations.
const (
	fleetOwner    = "operator-controller"
	origOwner     = "orig-driver"
	origNamespace = "orig-written"
	// The floor of listing: index Secrets with the fleet's names and labels, as the
	// original driver writes them (no summary annotations), holding no release.
	floorOwner     = "floor"
	floorNamespace = "floor-bare"
	fleetNSFmt     = "fleet-%02d"
	helmNSFmt      = "helm-%02d"
	revisions      = 10
	// markerName is a ConfigMap in namespace default that records which fleet a
	// cluster holds, so that -kubeconfig runs reuse it.
	markerName = "chunkview-bench-fleet"
	// fleetVersion changes whenever the generator does.
	fleetVersion = "5"
)

// fleetShape is the size of a fleet, its mix of release sizes and which copies
// of it are stored.
type fleetShape struct {
	Name       string
	Releases   int
	Namespaces int
	// Orig is how many releases helm-operator-plugins' driver stores too.
	Orig int
	// Large and Medium are the shares of large and medium releases; the rest are
	// small. MediumSpan is the width of the medium range above its 100 KiB floor.
	Large, Medium float64
	MediumSpan    int
	// HelmCopy: Helm's own Secrets driver stores the releases that fit it, and
	// the sections that compare with Helm (and the write and storage
	// measurements) run.
	HelmCopy bool
}

// shapes are the fleets -fleet picks. small is the default (make bench); large is
// ten times its revisions (make bench-large): mostly small releases, fewer medium
// ones and a few large, so that 20,000 revisions seed in a few minutes on a
// shared 2-CPU machine, without Helm's copy (Helm's action.List would need about
// 10 GB of memory to list it).
var shapes = map[string]fleetShape{
	"small": {Name: "small", Releases: 200, Namespaces: 10, Orig: 20, Large: 0.02, Medium: 0.18, MediumSpan: 600 << 10, HelmCopy: true},
	"large": {Name: "large", Releases: 2000, Namespaces: 50, Orig: 200, Large: 0.004, Medium: 0.08, MediumSpan: 300 << 10},
}

// Size classes of the fleet, by gzip size of a revision.
const (
	classSmall  = "small"
	classMedium = "medium"
	classLarge  = "large"
)

// relSpec is one release of the fleet: everything its revisions are generated from.
type relSpec struct {
	Index int
	Name  string
	NS    int // namespace number
	Class string
	// GZ is the gzip size aimed at for each revision.
	GZ    int
	Chart string
	Comps int    // number of components (Deployment + Service + ConfigMap each)
	Blob  int    // characters of poorly compressible data, calibrated to reach GZ
	Seed  uint64 // seed of everything random about the release
	// LastStatus is the status of the latest revision.
	LastStatus release.Status
}

func (s relSpec) fleetNS() string { return fmt.Sprintf(fleetNSFmt, s.NS) }
func (s relSpec) helmNS() string  { return fmt.Sprintf(helmNSFmt, s.NS) }

// fitsHelm reports whether Helm's own driver can store the release: base64 of its
// gzip stream must stay under the 1 MiB Secret limit.
func (s relSpec) fitsHelm() bool { return s.Class != classLarge }

var (
	teams  = []string{"payments", "search", "checkout", "identity", "billing", "catalog", "shipping", "ledger", "fraud", "notify", "media", "growth"}
	comps  = []string{"api", "worker", "gateway", "web", "scheduler", "indexer", "sync", "cache", "broker", "exporter"}
	charts = []string{"web-service", "api-service", "queue-worker", "edge-gateway", "redis", "postgres-operator", "kafka-connect", "monitoring-stack", "cert-bundle", "platform-base"}
)

// fleetSpecs returns the releases of a fleet of n releases of shape sh, the same
// for the same seed: sh's shares of large and medium releases, the rest small,
// shuffled over the namespaces.
func fleetSpecs(sh fleetShape, n int, seed uint64) []relSpec {
	r := rand.New(rand.NewPCG(seed, 0xf1ee7))
	nLarge := max(1, int(math.Round(float64(n)*sh.Large)))
	nMedium := max(1, int(math.Round(float64(n)*sh.Medium)))
	classes := make([]string, n)
	for i := range classes {
		switch {
		case i < nLarge:
			classes[i] = classLarge
		case i < nLarge+nMedium:
			classes[i] = classMedium
		default:
			classes[i] = classSmall
		}
	}
	r.Shuffle(n, func(i, j int) { classes[i], classes[j] = classes[j], classes[i] })
	specs := make([]relSpec, n)
	for i := range specs {
		s := relSpec{
			Index: i,
			Name:  fmt.Sprintf("%s-%s-%03d", teams[r.IntN(len(teams))], comps[r.IntN(len(comps))], i),
			NS:    i % sh.Namespaces,
			Class: classes[i],
			Chart: charts[r.IntN(len(charts))],
			Seed:  r.Uint64(),
		}
		switch s.Class {
		case classSmall:
			s.GZ = 5<<10 + r.IntN(45<<10)
			s.Comps = 2 + r.IntN(6)
		case classMedium:
			s.GZ = 100<<10 + r.IntN(sh.MediumSpan)
			s.Comps = 8 + r.IntN(20)
		case classLarge:
			s.GZ = 2<<20 + r.IntN(4<<20)
			s.Comps = 30 + r.IntN(30)
		}
		switch p := r.IntN(100); {
		case p < 3:
			s.LastStatus = release.StatusFailed
		case p < 4:
			s.LastStatus = release.StatusPendingUpgrade
		default:
			s.LastStatus = release.StatusDeployed
		}
		specs[i] = s
	}
	return specs
}

// calibrate sets s.Blob so that a revision compresses to about s.GZ bytes: it
// measures the rest of the release and fills the difference with text that gzip
// stores at about 6 bits a character.
func calibrate(s *relSpec) error {
	s.Blob = 0
	gz, _, err := storage.EncodePayload(buildRelease(*s, revisions, s.fleetNS()))
	if err != nil {
		return err
	}
	const ratio = 0.7525 // gzip -9 of the blob's base64 text, newlines included
	s.Blob = max(0, int(float64(s.GZ-len(gz))/ratio))
	return nil
}

// noise fills b with base64-alphabet characters drawn from r.
func noise(r *rand.Rand, b []byte) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	var buf [8]byte
	for i := 0; i < len(b); {
		binary.LittleEndian.PutUint64(buf[:], r.Uint64())
		v := binary.LittleEndian.Uint64(buf[:])
		for k := 0; k < 10 && i < len(b); k++ {
			b[i] = alphabet[v&63]
			v >>= 6
			i++
		}
	}
}

// pemBlock writes n characters of r's noise as PEM-like lines of 64 under a YAML
// literal block indented by indent.
func pemBlock(w *strings.Builder, r *rand.Rand, n int, indent string) {
	line := make([]byte, 64)
	fmt.Fprintf(w, "%s-----BEGIN CERTIFICATE-----\n", indent)
	for n > 0 {
		k := min(64, n)
		noise(r, line[:k])
		w.WriteString(indent)
		w.Write(line[:k])
		w.WriteByte('\n')
		n -= k
	}
	fmt.Fprintf(w, "%s-----END CERTIFICATE-----\n", indent)
}

var baseTime = time.Date(2026, 9, 1, 8, 0, 0, 0, time.UTC)

// buildRelease returns revision rev of s, its resources in namespace ns. Values,
// image tags, replica counts, chart versions and a tenth of the bundled data change
// from one revision to the next.
func buildRelease(s relSpec, rev int, ns string) *release.Release {
	r := rand.New(rand.NewPCG(s.Seed, uint64(rev)))
	chartVersion := fmt.Sprintf("%d.%d.%d", 1+s.Index%3, rev/3, rev%3)
	appVersion := fmt.Sprintf("%d.%d", 2+s.Index%4, rev)
	tag := fmt.Sprintf("v%d.%d.%d", 2+s.Index%4, rev, r.IntN(10))
	replicas := 1 + r.IntN(5)

	var m strings.Builder
	m.Grow(s.Blob + s.Comps*2048)
	for c := range s.Comps {
		comp := fmt.Sprintf("%s-c%02d", s.Name, c)
		fmt.Fprintf(&m, `---
# Source: %[4]s/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
  namespace: %[2]s
  labels:
    app.kubernetes.io/name: %[1]s
    app.kubernetes.io/instance: %[3]s
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: %[4]s-%[5]s
spec:
  replicas: %[6]d
  selector:
    matchLabels:
      app.kubernetes.io/name: %[1]s
  template:
    metadata:
      labels:
        app.kubernetes.io/name: %[1]s
      annotations:
        checksum/config: %[7]016x
    spec:
      serviceAccountName: %[3]s
      containers:
      - name: app
        image: registry.example.com/%[3]s/app:%[8]s
        ports:
        - containerPort: 8080
        envFrom:
        - configMapRef:
            name: %[1]s-env
        resources:
          requests: {cpu: %[9]dm, memory: %[10]dMi}
          limits: {cpu: "1", memory: 1Gi}
        readinessProbe:
          httpGet: {path: /healthz, port: 8080}
---
# Source: %[4]s/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: %[1]s
  namespace: %[2]s
spec:
  selector:
    app.kubernetes.io/name: %[1]s
  ports:
  - port: 80
    targetPort: 8080
---
# Source: %[4]s/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: %[1]s-env
  namespace: %[2]s
data:
  LOG_LEVEL: %[11]s
  FEATURE_FLAGS: "%[12]x"
  UPSTREAM: http://%[3]s-c%02[13]d.%[2]s.svc:80
`, comp, ns, s.Name, s.Chart, chartVersion, replicas, r.Uint64(), tag, 100+r.IntN(400), 128+r.IntN(512),
			[]string{"info", "debug", "warn"}[r.IntN(3)], r.Uint32(), (c+1)%s.Comps)
	}
	// The bulk: bundles of certificates and generated data, which gzip cannot shrink
	// much. Nine tenths stay the same across revisions, a tenth changes.
	if s.Blob > 0 {
		stable := rand.New(rand.NewPCG(s.Seed, 0))
		const per = 192 << 10
		left := s.Blob
		for part := 0; left > 0; part++ {
			n := min(per, left)
			left -= n
			fmt.Fprintf(&m, "---\n# Source: %s/templates/bundle.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-bundle-%d\n  namespace: %s\ndata:\n  ca-bundle.pem: |\n", s.Chart, s.Name, part, ns)
			stableN := n * 9 / 10
			pemBlock(&m, stable, stableN, "    ")
			pemBlock(&m, r, n-stableN, "    ")
		}
	}

	st := release.StatusSuperseded
	switch {
	case rev == revisions:
		st = s.LastStatus
	case rev == revisions-1 && s.LastStatus != release.StatusDeployed:
		st = release.StatusDeployed
	}
	desc := "Upgrade complete"
	switch {
	case rev == 1:
		desc = "Install complete"
	case st == release.StatusFailed:
		desc = "Upgrade \"" + s.Name + "\" failed: context deadline exceeded"
	case st == release.StatusPendingUpgrade:
		desc = "Preparing upgrade"
	}
	deployed := helmtime.Time{Time: baseTime.Add(time.Duration(s.Index)*time.Minute + time.Duration(rev)*24*time.Hour)}
	return &release.Release{
		Name:      s.Name,
		Namespace: ns,
		Version:   rev,
		Manifest:  m.String(),
		Config: map[string]interface{}{
			"replicaCount": float64(replicas),
			"image":        map[string]interface{}{"repository": "registry.example.com/" + s.Name + "/app", "tag": tag},
			"resources":    map[string]interface{}{"requests": map[string]interface{}{"cpu": "250m", "memory": "256Mi"}},
			"featureFlags": map[string]interface{}{"newCheckout": rev%2 == 0, "shadowTraffic": rev%3 == 0},
			"ingress":      map[string]interface{}{"enabled": true, "host": s.Name + ".example.com"},
		},
		Info: &release.Info{
			FirstDeployed: helmtime.Time{Time: baseTime.Add(time.Duration(s.Index) * time.Minute)},
			LastDeployed:  deployed,
			Status:        st,
			Description:   desc,
			Notes:         fmt.Sprintf("%s is running.\nGet the URL with: kubectl -n %s get ingress %s\n", s.Name, ns, s.Name),
		},
		Chart: &chart.Chart{
			Metadata: &chart.Metadata{
				Name: s.Chart, Version: chartVersion, AppVersion: appVersion, APIVersion: "v2",
				Description: "A Helm chart for " + s.Chart, Type: "application",
				Maintainers: []*chart.Maintainer{{Name: "platform-team", Email: "platform@example.com"}},
			},
			Templates: chartTemplates(s.Chart),
			Values: map[string]interface{}{
				"replicaCount": float64(1),
				"image":        map[string]interface{}{"repository": "registry.example.com/app", "tag": "", "pullPolicy": "IfNotPresent"},
				"service":      map[string]interface{}{"type": "ClusterIP", "port": float64(80)},
				"resources":    map[string]interface{}{},
			},
			Files: []*chart.File{{Name: "README.md", Data: []byte("# " + s.Chart + "\n\nDeploys " + s.Chart + " with its configuration and certificate bundles.\n")}},
		},
		Labels: map[string]string{},
	}
}

func chartTemplates(name string) []*chart.File {
	return []*chart.File{
		{Name: "templates/_helpers.tpl", Data: []byte(`{{- define "` + name + `.fullname" -}}{{ .Release.Name | trunc 63 | trimSuffix "-" }}{{- end -}}` + "\n")},
		{Name: "templates/deployment.yaml", Data: []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ include \"" + name + ".fullname\" . }}\nspec:\n  replicas: {{ .Values.replicaCount }}\n  template:\n    spec:\n      containers:\n      - name: app\n        image: \"{{ .Values.image.repository }}:{{ .Values.image.tag }}\"\n")},
		{Name: "templates/service.yaml", Data: []byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ include \"" + name + ".fullname\" . }}\nspec:\n  type: {{ .Values.service.type }}\n  ports:\n  - port: {{ .Values.service.port }}\n")},
		{Name: "templates/bundle.yaml", Data: []byte("{{- range $i, $b := .Values.bundles }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ $.Release.Name }}-bundle-{{ $i }}\ndata:\n  ca-bundle.pem: |\n{{ $b | indent 4 }}\n{{- end }}\n")},
		{Name: "templates/NOTES.txt", Data: []byte("{{ .Release.Name }} is running.\n")},
	}
}

// fleet is a generated fleet and where it is stored.
type fleet struct {
	Shape fleetShape
	Specs []relSpec
	Orig  []relSpec // the subset also stored by the original driver
	Seed  uint64
	Scale float64
}

// fleetSize is the number of releases of shape sh at scale.
func fleetSize(sh fleetShape, scale float64) int {
	return max(sh.Namespaces, int(math.Round(float64(sh.Releases)*scale)))
}

func newFleet(sh fleetShape, scale float64, seed uint64) (*fleet, error) {
	specs := fleetSpecs(sh, fleetSize(sh, scale), seed)
	var g errgroup.Group
	g.SetLimit(2)
	for i := range specs {
		g.Go(func() error { return calibrate(&specs[i]) })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	no := min(len(specs), max(2, int(math.Round(float64(sh.Orig)*scale))))
	orig := specs[:no]
	if sh.Name != "small" && !hasClass(orig, classLarge) {
		// The original driver's copy holds a release of several chunks, so that
		// listing it shows whether a row costs one read whatever its size. (The
		// small fleet keeps its subset as it was measured.)
		for _, s := range specs[no:] {
			if s.Class == classLarge {
				orig = append(orig[:no:no], s)
				break
			}
		}
	}
	return &fleet{Shape: sh, Specs: specs, Orig: orig, Seed: seed, Scale: scale}, nil
}

func hasClass(specs []relSpec, class string) bool {
	for _, s := range specs {
		if s.Class == class {
			return true
		}
	}
	return false
}

func (f *fleet) marker() map[string]string {
	return map[string]string{"version": fleetVersion, "fleet": f.Shape.Name, "seed": fmt.Sprint(f.Seed), "releases": fmt.Sprint(len(f.Specs))}
}

// present reports whether the cluster already holds this fleet, complete.
func (f *fleet) present(ctx context.Context, cs kubernetes.Interface) bool {
	cm, err := cs.CoreV1().ConfigMaps("default").Get(ctx, markerName, metav1.GetOptions{})
	if err != nil {
		return false
	}
	for k, v := range f.marker() {
		if cm.Data[k] != v {
			return false
		}
	}
	return cm.Data["complete"] == "true"
}

// fleetNamespaces returns the namespaces the fleet's chunkview copy lives in.
func (f *fleet) fleetNamespaces() []string {
	out := make([]string, f.Shape.Namespaces)
	for i := range out {
		out[i] = fmt.Sprintf(fleetNSFmt, i)
	}
	return out
}
