package cli_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/storage"
)

// cutOff is a Secrets client whose connection is lost after a create's Secrets
// were written: the update that completes the record fails, and so does every
// delete that would clean up after it.
type cutOff struct{ corev1client.SecretInterface }

var errCutOff = errors.New("connection lost")

func (cutOff) Update(context.Context, *corev1.Secret, metav1.UpdateOptions) (*corev1.Secret, error) {
	return nil, errCutOff
}
func (cutOff) Delete(context.Context, string, metav1.DeleteOptions) error { return errCutOff }
func (cutOff) DeleteCollection(context.Context, metav1.DeleteOptions, metav1.ListOptions) error {
	return errCutOff
}

// interruptCreate makes chunkview's driver create the next revision of release
// name and loses the connection before the create completes: it leaves the
// pending index and the chunks. It returns the revision and when the API server
// created the pending index.
func (e *env) interruptCreate(name string) (int, time.Time) {
	e.t.Helper()
	d := driverFor(byChunkview, e.ns)
	rels, err := d.Query(map[string]string{"name": name, "owner": "helm"})
	if err != nil {
		e.t.Fatal(err)
	}
	latest := rels[0]
	for _, r := range rels {
		if r.Version > latest.Version {
			latest = r
		}
	}
	next := *latest
	info := *latest.Info
	next.Info, next.Version = &info, latest.Version+1
	next.Info.Status = release.StatusPendingRollback
	cut := storage.NewChunkedSecrets(cutOff{cluster.Client.CoreV1().Secrets(e.ns)}, testOwner, storage.ChunkedSecretsConfig{ChunkSize: testChunkSize})
	if err := cut.Create(storage.RecordKey(name, next.Version), &next); !errors.Is(err, errCutOff) {
		e.t.Fatalf("the cut-off create: %v, want the lost connection", err)
	}
	s, err := cluster.Client.CoreV1().Secrets(e.ns).Get(context.Background(), storage.RecordKey(name, next.Version), metav1.GetOptions{})
	if err != nil || !storage.IsPending(s) {
		e.t.Fatalf("no pending index left: %v", err)
	}
	return next.Version, s.CreationTimestamp.Time
}

// TestPendingIndexShownAndRemoved: a create cut off after its pending index was
// written blocks every create of that revision (helm-operator-plugins' included).
// Within storage.PendingLease it is a create in flight: ls says nothing, verify
// and gc leave it alone and say when they will not. Past it, ls marks the release
// blocked and says what removes it, verify reports it (exit 4), and gc removes
// it, after which the other writer's create goes through.
func TestPendingIndexShownAndRemoved(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.install(byChunkview, "app", 2)
	e.install(byChunkview, "other", 1)
	rev, created := e.interruptCreate("app")
	// Ages are measured from the pending index's creation, by clocks set off
	// it: a second on (a create in flight), twenty seconds on (interrupted).
	at := func(d time.Duration) *cli.App {
		return &cli.App{Now: func() time.Time { return created.Add(d) }}
	}
	key := storage.RecordKey("app", rev)
	hop := hopstorage.NewChunkedSecrets(cluster.Client.CoreV1().Secrets(e.ns), testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: testChunkSize})
	rls, err := driverFor(byChunkview, e.ns).Get(storage.RecordKey("app", 2))
	if err != nil {
		t.Fatal(err)
	}
	rls.Version = rev
	if err := hop.Create(key, rls); !errors.Is(err, driver.ErrReleaseExists) {
		t.Fatalf("helm-operator-plugins' create of revision %d beside the pending index: %v, want ErrReleaseExists", rev, err)
	}

	// In flight: nothing blocked yet, and said so.
	r := e.runApp(at(time.Second), "", "ls", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	var inFlight cli.Releases
	decode(t, r, &inFlight)
	for _, it := range inFlight.Releases {
		if it.Name == "app" && (it.PendingIndex != nil || it.Revision != 2) {
			t.Errorf("ls of a create in flight: %+v", it)
		}
	}
	r = e.runApp(at(time.Second), "", "verify")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stdout, "1 pending index younger than 15s") {
		t.Errorf("verify of a create in flight: %s", r)
	}
	r = e.runApp(at(time.Second), "", "gc", "--dry-run")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stdout, "Left alone:") || !strings.Contains(r.stdout, "1 pending index younger than 15s") {
		t.Errorf("gc of a create in flight: %s", r)
	}

	// Twenty seconds on: an interrupted create.
	app := func() *cli.App { return at(20 * time.Second) }
	r = e.runApp(app(), "", "ls")
	mustCode(t, r, cli.ExitOK)
	var appLine string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "app ") {
			appLine = l
		}
		// ... HEALTH FILL
		if f := strings.Fields(l); strings.HasPrefix(l, "other ") && f[len(f)-2] != "ok" {
			t.Errorf("other is not blocked: %q", l)
		}
	}
	if f := strings.Fields(appLine); len(f) < 2 || f[len(f)-2] != "blocked" {
		t.Errorf("ls: app's row does not say blocked:\n%s", r.stdout)
	}
	for _, want := range []string{"Warning: revision 3 of " + e.ns + "/app was never written", "fails every create of revision 3", "`chunkview gc -n " + e.ns + "` removes it"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("ls: stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	interrupted := regexp.MustCompile(`interrupted 20s ago`)
	if !interrupted.MatchString(r.stderr) {
		t.Errorf("ls does not say when the create was interrupted:\n%s", r.stderr)
	}
	r = e.runApp(app(), "", "ls", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	var out cli.Releases
	decode(t, r, &out)
	for _, it := range out.Releases {
		if it.Name == "app" && (it.PendingIndex == nil || it.PendingIndex.Revision != rev || it.PendingIndex.Key != key || it.Revision != 2) {
			t.Errorf("ls -o json: %+v", it)
		}
	}
	for _, args := range [][]string{{"verify"}, {"verify", "app"}} {
		r = e.runApp(app(), "", args...)
		mustCode(t, r, cli.ExitProblems)
		if !strings.Contains(r.stdout, "pending-index") || !interrupted.MatchString(r.stdout) {
			t.Errorf("%v: %s", args, r)
		}
	}
	r = e.runApp(app(), "", "gc", "--yes")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stdout, "Removed 1 of 1") {
		t.Errorf("gc: %s", r)
	}
	if _, err := cluster.Client.CoreV1().Secrets(e.ns).Get(context.Background(), key, metav1.GetOptions{}); err == nil {
		t.Fatal("gc left the pending index")
	}
	// The block is gone: the other writer's create goes through, and ls is
	// clean.
	if err := hop.Create(key, rls); err != nil {
		t.Fatalf("helm-operator-plugins' create after gc: %v", err)
	}
	r = e.runApp(app(), "", "ls")
	mustCode(t, r, cli.ExitOK)
	if strings.Contains(r.stdout, "blocked") || strings.Contains(r.stderr, "never written") {
		t.Errorf("ls after gc: %s", r)
	}
}

// TestPendingIndexAlone: a release whose only record is a pending index (a first
// install cut off) gets a row of its own, so that what holds the name shows.
func TestPendingIndexAlone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.install(byChunkview, "seed", 1)
	d := driverFor(byChunkview, e.ns)
	rls, err := d.Get(storage.RecordKey("seed", 1))
	if err != nil {
		t.Fatal(err)
	}
	rls.Name, rls.Info.Status = "fresh", release.StatusPendingInstall
	cut := storage.NewChunkedSecrets(cutOff{cluster.Client.CoreV1().Secrets(e.ns)}, testOwner, storage.ChunkedSecretsConfig{ChunkSize: testChunkSize})
	if err := cut.Create(storage.RecordKey("fresh", 1), rls); !errors.Is(err, errCutOff) {
		t.Fatalf("the cut-off create: %v", err)
	}
	s, err := cluster.Client.CoreV1().Secrets(e.ns).Get(context.Background(), storage.RecordKey("fresh", 1), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := e.runApp(&cli.App{Now: func() time.Time { return s.CreationTimestamp.Add(time.Minute) }}, "", "ls")
	mustCode(t, r, cli.ExitOK)
	found := false
	for _, l := range strings.Split(r.stdout, "\n") {
		// NAME NAMESPACE REVISION STATUS ... HEALTH FILL
		if f := strings.Fields(l); len(f) > 4 && f[0] == "fresh" {
			found = true
			if f[3] != "pending-index" || f[len(f)-2] != "blocked" {
				t.Errorf("the row of a pending index alone: %q", l)
			}
		}
	}
	if !found || !strings.Contains(r.stderr, "revision 1 of "+e.ns+"/fresh was never written") {
		t.Errorf("ls:\n%s", r)
	}
}

// TestRetryBesideInterruptedCreate: a rollback retried within
// storage.PendingLease of a create cut off halfway (its pending index left
// behind) is refused as a release that changed (exit 7), and the message says
// why: the unfinished write of that revision, naming its pending index Secret,
// and when it can be retried. The machine may be slow enough for the lease to
// pass before the retry: then the rollback takes the pending index over and
// succeeds, and the case is tried again, up to three times.
func TestRetryBesideInterruptedCreate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for try := range 3 {
		name := "retry" + itoa(try)
		e.install(byChunkview, name, 2)
		rev, created := e.interruptCreate(name)
		r := e.run("rollback", name, "1", "--yes")
		if r.code == cli.ExitOK && time.Since(created) > storage.PendingLease {
			t.Logf("try %d: the retry came %s after the interrupted create, past the lease: it took the pending index over", try, time.Since(created).Round(time.Second))
			continue
		}
		mustCode(t, r, cli.ExitChanged)
		t.Logf("the refusal: %s", r.stderr)
		key := storage.RecordKey(name, rev)
		for _, want := range []string{"pending index Secret " + e.ns + "/" + key, "unfinished", "retry", "15s"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("the refusal does not say %q: %s", want, r)
			}
		}
		return
	}
	t.Fatal("every retry came after the pending index's lease: the machine was too slow to show the case")
}
