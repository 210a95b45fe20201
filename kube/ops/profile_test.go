package ops_test

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// TestResolveProfiles proves that --profile sets the storage defaults and that
// explicit flags override them, including an explicit zero or empty value.
func TestResolveProfiles(t *testing.T) {
	type want struct {
		owner, storageNS         string
		chunk, maxRead, maxWrite int
		timeout                  time.Duration
	}
	tests := []struct {
		name    string
		args    []string
		want    want
		wantErr string
	}{
		{"default", nil, want{owner: "helm", chunk: storage.DefaultChunkSize}, ""},
		{"olmv1", []string{"--profile", "olmv1"}, want{"operator-controller", "olmv1-system", 1_040_384, 11, 11, 0}, ""},
		{"olmv1 with every storage flag overriding it",
			[]string{"--profile", "olmv1", "--owner", "my-operator", "--storage-namespace", "ops", "--chunk-size", "65536", "--max-read-chunks", "0", "--max-write-chunks", "20"},
			want{"my-operator", "ops", 65536, 0, 20, 0}, ""},
		{"olmv1 with records beside the release", []string{"--profile", "olmv1", "--storage-namespace", ""},
			want{"operator-controller", "", 1_040_384, 11, 11, 0}, ""},
		{"owner alone keeps the profile's namespace", []string{"--profile=olmv1", "--owner=x"},
			want{"x", "olmv1-system", 1_040_384, 11, 11, 0}, ""},
		{"request timeout bounds driver calls", []string{"--request-timeout", "5s"},
			want{owner: "helm", chunk: storage.DefaultChunkSize, timeout: 20 * time.Second}, ""},
		{"unknown profile", []string{"--profile", "olm"}, want{}, `unknown --profile "olm": use default or olmv1`},
		{"chunk too small", []string{"--chunk-size", "100"}, want{}, "--chunk-size 100 is out of range"},
		{"chunk too large", []string{"--chunk-size", "1048576"}, want{}, "--chunk-size 1048576 is out of range"},
		{"negative limit", []string{"--max-read-chunks", "-1"}, want{}, "must not be negative"},
		{"bad timeout", []string{"--request-timeout", "soon"}, want{}, "want a duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseOptions(t, tt.args).Resolve()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Resolve %v: error %v, want one containing %q", tt.args, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve %v: %v", tt.args, err)
			}
			got := want{cfg.Owner, cfg.StorageNamespace, cfg.Driver.ChunkSize, cfg.Driver.MaxReadChunks, cfg.Driver.MaxWriteChunks, cfg.Driver.Timeout}
			if got != tt.want {
				t.Errorf("Resolve %v = %+v, want %+v", tt.args, got, tt.want)
			}
		})
	}
}

// TestOLMv1Profile proves the OLMv1 layout end to end: records in olmv1-system
// owned by operator-controller, written by either driver, resources in the
// ClusterExtensions' own namespaces. Listing finds them whatever the kubeconfig's
// namespace, and operations write records and resources where they belong.
func TestOLMv1Profile(t *testing.T) {
	ctx := t.Context()
	const sysNS, owner = "olmv1-system", "operator-controller"
	ensureNamespace(t, cluster.Client, sysNS)
	appA, appB := cluster.Namespace(t), cluster.Namespace(t)
	kc := adminKubeconfig(t, "")

	// ext-a is written by chunkview's driver, ext-b by the one OLMv1 ships.
	cvDrv := storage.NewChunkedSecrets(secrets(sysNS), owner, storage.ChunkedSecretsConfig{ChunkSize: 1_040_384, MaxReadChunks: 11, MaxWriteChunks: 11})
	hopDrv := originalDriver(sysNS, owner, 1_040_384)
	cfgA, cfgB := helmConfig(t, kc, appA, cvDrv), helmConfig(t, kc, appB, hopDrv)
	helmInstall(t, cfgA, appA, "ext-a", webappValues("ext-a", 0, 100))
	helmUpgrade(t, cfgA, appA, "ext-a", "1.1.0", webappValues("ext-a", 1, 100))
	helmInstall(t, cfgB, appB, "ext-b", webappValues("ext-b", 0, 100))
	helmUpgrade(t, cfgB, appB, "ext-b", "1.1.0", webappValues("ext-b", 1, 100))

	find := func(rows []kube.ReleaseRow, name string) *kube.ReleaseRow {
		for i := range rows {
			if rows[i].Latest.Name == name {
				return &rows[i]
			}
		}
		return nil
	}

	// The kubeconfig names no namespace (so "default"); the records are all in
	// olmv1-system and both releases list.
	c := connect(t, kc, []string{"--profile", "olmv1"}, nil)
	if got := c.Config(); got.Owner != owner || got.StorageNamespace != sysNS {
		t.Fatalf("--profile olmv1: owner %q storage namespace %q", got.Owner, got.StorageNamespace)
	}
	rows, err := c.Releases(ctx)
	if err != nil {
		t.Fatalf("Releases: %v", err)
	}
	a, b := find(rows, "ext-a"), find(rows, "ext-b")
	if a == nil || b == nil {
		t.Fatalf("--profile olmv1 lists %+v; want ext-a and ext-b", rows)
	}
	if a.Latest.StorageNamespace != sysNS || !a.Latest.Known || a.Latest.Summary.Namespace != appA || a.Revisions != 2 {
		t.Errorf("ext-a: %+v", a)
	}
	if b.Latest.StorageNamespace != sysNS || b.Latest.Known || b.Revisions != 2 {
		t.Errorf("ext-b: %+v", b)
	}

	// -n narrows the listing to releases whose resources live there; rows whose
	// namespace is not known without decoding stay.
	for _, tc := range []struct {
		ns        string
		wantA     bool
		wantB     bool
		contextNS bool
	}{
		{ns: appA, wantA: true, wantB: true},
		{ns: appB, wantA: false, wantB: true},
		{ns: appB, wantA: true, wantB: true, contextNS: true},
	} {
		var cn *kube.Client
		if tc.contextNS {
			// A namespace in the kubeconfig's context is not a request to narrow.
			cn = connect(t, adminKubeconfig(t, tc.ns), []string{"--profile", "olmv1"}, nil)
		} else {
			cn = connect(t, kc, []string{"--profile", "olmv1", "-n", tc.ns}, nil)
		}
		rows, err := cn.Releases(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if (find(rows, "ext-a") != nil) != tc.wantA || (find(rows, "ext-b") != nil) != tc.wantB {
			t.Errorf("namespace %s (from context: %v): ext-a listed %v, ext-b listed %v; want %v, %v",
				tc.ns, tc.contextNS, find(rows, "ext-a") != nil, find(rows, "ext-b") != nil, tc.wantA, tc.wantB)
		}
	}

	hist, err := c.History(ctx, "", "ext-b")
	if err != nil || len(hist) != 2 || hist[1].StorageNamespace != sysNS {
		t.Fatalf("History of ext-b: %+v, %v", hist, err)
	}

	// Rollback ext-a: the new record goes to olmv1-system, the resources in appA
	// change back.
	if got := configMapData(t, appA, "ext-a-config")["color"]; got != "green" {
		t.Fatalf("ext-a-config color %q before rollback", got)
	}
	plan, err := applyByName(ctx, c, "", "ext-a", rollbackPlan(1, kube.DiffOptions{}))
	if err != nil {
		t.Fatalf("Rollback ext-a: %v", err)
	}
	if !plan.Applied || plan.NewRevision != 3 {
		t.Errorf("Rollback plan %+v", plan)
	}
	if got := configMapData(t, appA, "ext-a-config")["color"]; got != "blue" {
		t.Errorf("ext-a-config color %q after rollback to 1, want blue", got)
	}
	if configMapData(t, appA, "ext-a-extra") != nil {
		t.Errorf("ext-a-extra, added by revision 2, is still in %s after rollback to 1", appA)
	}
	if got := secretsOfKey(t, sysNS, owner, storage.RecordKey("ext-a", 3)); len(got) != 1 {
		t.Errorf("rollback record in %s: %v", sysNS, got)
	}
	for _, ns := range []string{appA, appB} {
		list, err := secrets(ns).List(ctx, metav1.ListOptions{LabelSelector: "owner"})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 0 {
			t.Errorf("release records leaked into the release namespace %s: %d Secrets", ns, len(list.Items))
		}
	}

	// Roll ext-b back through chunkview: revision 3 and the superseded revision 2
	// now carry chunkview's summary, revision 1 is still the original driver's. -n
	// judges the release by its latest revision, never by single revisions.
	if _, err := applyByName(ctx, c, "", "ext-b", rollbackPlan(1, kube.DiffOptions{})); err != nil {
		t.Fatalf("Rollback ext-b: %v", err)
	}
	for _, tc := range []struct {
		ns   string
		want bool
	}{{appA, false}, {appB, true}} {
		cn := connect(t, kc, []string{"--profile", "olmv1", "-n", tc.ns}, nil)
		rows, err := cn.Releases(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := find(rows, "ext-b")
		if (got != nil) != tc.want {
			t.Errorf("-n %s: ext-b listed %v, want %v: %+v", tc.ns, got != nil, tc.want, got)
		}
		if got != nil && (got.Revisions != 3 || got.Latest.Revision != 3 || !got.Latest.Known) {
			t.Errorf("-n %s: ext-b %+v, want 3 revisions, the latest known", tc.ns, got)
		}
	}

	// Uninstall ext-b, first written by the original driver: its resources go from
	// appB, its records from olmv1-system.
	if _, err := applyByName(ctx, c, "", "ext-b", uninstallPlan(false)); err != nil {
		t.Fatalf("Uninstall ext-b: %v", err)
	}
	for _, cm := range []string{"ext-b-config", "ext-b-blob", "ext-b-extra"} {
		if configMapData(t, appB, cm) != nil {
			t.Errorf("ConfigMap %s/%s survived uninstall", appB, cm)
		}
	}
	for rev := 1; rev <= 3; rev++ {
		if got := secretsOfKey(t, sysNS, owner, storage.RecordKey("ext-b", rev)); len(got) != 0 {
			t.Errorf("records of ext-b v%d survived uninstall: %v", rev, got)
		}
	}
	if configMapData(t, appA, "ext-a-config") == nil {
		t.Errorf("uninstalling ext-b removed ext-a's resources")
	}

	// An explicit --owner overrides the profile's: operator-controller's records
	// are not listed under another owner.
	other := connect(t, kc, []string{"--profile", "olmv1", "--owner", "someone-else"}, nil)
	rows, err = other.Releases(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 0 {
		t.Errorf("--owner someone-else lists %d releases of %s", len(rows), owner)
	}
}
