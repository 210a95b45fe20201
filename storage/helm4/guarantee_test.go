package helm4_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"helm.sh/helm/v4/pkg/release/common"
	rspb "helm.sh/helm/v4/pkg/release/v1"
	helmstorage "helm.sh/helm/v4/pkg/storage"
	"helm.sh/helm/v4/pkg/storage/driver"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"

	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/storage/helm4"
)

// The guarantees of the core are tested against both adapters by storage's tests;
// these hold the Helm 4 adapter to them through Helm 4's own storage layer, as
// Helm 4's actions use it.

// TestNoLostUpdateAfterReRead: Helm 4's upgrade reads the current release (Last),
// creates the next revision (with MaxHistory, Storage.Create reads the history
// again first), then writes back the value of its first read, superseded. A
// change another writer made between the first read and the re-read fails that
// write with storage.ErrConflict, and the other writer's record stays; a write of
// the value the re-read returned goes through.
func TestNoLostUpdateAfterReRead(t *testing.T) {
	const name = "reread"
	_, secrets := newNamespace(t)
	orig := hopstorage.NewChunkedSecrets(secrets, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: chunkSize})
	if err := orig.Create(key(name, 1), asHelm3(t, fullRelease(name, 1, common.StatusDeployed, contractPayload, 1))); err != nil {
		t.Fatal(err)
	}
	st := helmstorage.Init(helm4.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: chunkSize}))
	st.MaxHistory = 10
	last, err := st.Last(name) // the first read
	if err != nil {
		t.Fatal(err)
	}
	theirs := asHelm3(t, fullRelease(name, 1, common.StatusFailed, contractPayload, 2))
	if err := orig.Update(key(name, 1), theirs); err != nil { // another writer, in between
		t.Fatal(err)
	}
	if err := st.Create(fullRelease(name, 2, common.StatusPendingUpgrade, contractPayload, 3)); err != nil {
		t.Fatal(err)
	}
	current := last.(*rspb.Release)
	current.SetStatus(common.StatusSuperseded, "Superseded by 2")
	if err := st.Update(current); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("update of the value read before another writer's change: %v, want storage.ErrConflict", err)
	}
	stayed, err := orig.Get(key(name, 1))
	if err != nil {
		t.Fatal(err)
	}
	mustSameHelm3(t, "the other writer's record", theirs, stayed)
	reread, err := st.Get(name, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := reread.(*rspb.Release)
	r.SetStatus(common.StatusSuperseded, "Superseded by 2")
	if err := st.Update(r); err != nil {
		t.Fatalf("update of the value read after it: %v", err)
	}
}

// TestExpectThroughHelmStorage: a driver held to a plan, under Helm 4's storage,
// reads the history and writes a rollback's records (a new revision, the one
// before superseded) while the release is as planned; once another writer has
// changed a planned record, the history read and the update both fail with
// storage.ErrConflict, and nothing is written.
func TestExpectThroughHelmStorage(t *testing.T) {
	const name = "planned"
	cfg := storage.ChunkedSecretsConfig{ChunkSize: chunkSize}
	setup := func(t *testing.T) (*helm4.ChunkedSecrets, map[string]string) {
		_, secrets := newNamespace(t)
		d := helm4.NewDriver(secrets, testOwner, cfg)
		plan := map[string]string{}
		for rev := 1; rev <= 2; rev++ {
			if err := d.Create(key(name, rev), fullRelease(name, rev, common.StatusSuperseded, contractPayload, uint64(rev))); err != nil {
				t.Fatal(err)
			}
			idx, err := d.ReadIndex(t.Context(), key(name, rev))
			if err != nil {
				t.Fatal(err)
			}
			plan[key(name, rev)] = idx.ResourceVersion
		}
		return d, plan
	}
	t.Run("as-planned", func(t *testing.T) {
		d, plan := setup(t)
		st := helmstorage.Init(d.Expect(name, plan))
		h, err := st.History(name)
		if err != nil || len(h) != 2 {
			t.Fatalf("history: %d, %v", len(h), err)
		}
		if err := st.Create(fullRelease(name, 3, common.StatusDeployed, contractPayload, 3)); err != nil {
			t.Fatal(err)
		}
		prev := h[1].(*rspb.Release)
		if prev.Version != 2 {
			prev = h[0].(*rspb.Release)
		}
		prev.SetStatus(common.StatusSuperseded, "Superseded by 3")
		if err := st.Update(prev); err != nil {
			t.Fatalf("update by the pinned driver: %v", err)
		}
		if h, err := st.History(name); err != nil || len(h) != 3 {
			t.Fatalf("history after its own writes: %d, %v", len(h), err)
		}
	})
	t.Run("moved-on", func(t *testing.T) {
		d, plan := setup(t)
		orig := hopstorage.NewChunkedSecrets(d.Client(), testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: chunkSize})
		if err := orig.Update(key(name, 2), asHelm3(t, fullRelease(name, 2, common.StatusFailed, contractPayload, 9))); err != nil {
			t.Fatal(err)
		}
		st := helmstorage.Init(d.Expect(name, plan))
		if _, err := st.History(name); !errors.Is(err, storage.ErrConflict) {
			t.Fatalf("history after a planned record changed: %v, want storage.ErrConflict", err)
		}
		before, err := d.ReadIndex(t.Context(), key(name, 2))
		if err != nil {
			t.Fatal(err)
		}
		err = st.Update(fullRelease(name, 2, common.StatusSuperseded, contractPayload, 10))
		if !errors.Is(err, storage.ErrConflict) {
			t.Fatalf("update of a record changed since the plan: %v, want storage.ErrConflict", err)
		}
		after, err := d.ReadIndex(t.Context(), key(name, 2))
		if err != nil {
			t.Fatal(err)
		}
		if after.ResourceVersion != before.ResourceVersion {
			t.Fatalf("the refused update wrote the record (resourceVersion %s, was %s)", after.ResourceVersion, before.ResourceVersion)
		}
	})
}

// TestWithContext: a call of a copy made by WithContext runs under its context,
// and a cancelled one fails with context.Canceled; the driver it was made from
// goes on working.
func TestWithContext(t *testing.T) {
	_, secrets := newNamespace(t)
	d := helm4.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: chunkSize})
	want := fullRelease("ctx", 1, common.StatusDeployed, contractPayload, 1)
	if err := d.Create(key("ctx", 1), want); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.WithContext(ctx).Get(key("ctx", 1)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Get under a cancelled context: %v, want context.Canceled", err)
	}
	if err := d.WithContext(ctx).Create(key("ctx", 2), fullRelease("ctx", 2, common.StatusDeployed, contractPayload, 2)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Create under a cancelled context: %v, want context.Canceled", err)
	}
	got, err := d.Get(key("ctx", 1))
	if err != nil {
		t.Fatal(err)
	}
	mustSameRelease(t, "Get", want, got)
}

// logRecords is a slog.Handler that keeps what it is given.
type logRecords struct {
	mu      sync.Mutex
	records []string
}

func (l *logRecords) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecords) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	line := r.Level.String() + " " + r.Message
	r.Attrs(func(a slog.Attr) bool { line += " " + a.String(); return true })
	l.records = append(l.records, line)
	return nil
}
func (l *logRecords) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logRecords) WithGroup(string) slog.Handler      { return l }
func (l *logRecords) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.records, "\n")
}

// TestLogger: Helm 4's storage.Init takes up the driver's logger, as it does a
// Helm 4 driver's; the driver logs through it at debug level, with the keys it
// works on and never the release's data, and so do the copies Expect makes.
func TestLogger(t *testing.T) {
	_, secrets := newNamespace(t)
	d := helm4.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: chunkSize})
	var logs logRecords
	d.SetLogger(&logs)
	st := helmstorage.Init(d.Expect("logged", map[string]string{}))
	rls := fullRelease("logged", 1, common.StatusDeployed, contractPayload, 1)
	rls.Config["password"] = "hunter2-secret"
	if err := st.Create(rls); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get("logged", 1); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	if !strings.Contains(out, "creating release") {
		t.Fatalf("Helm's storage did not log through the driver's logger:\n%s", out)
	}
	if !strings.Contains(out, "DEBUG create: \""+key("logged", 1)+"\"") {
		t.Fatalf("the driver did not log its create at debug level:\n%s", out)
	}
	js, err := json.Marshal(rls)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"hunter2-secret", rls.Manifest[len(rls.Manifest)-40:], string(js[:60])} {
		if strings.Contains(out, secret) {
			t.Fatalf("the log holds release data %q:\n%s", secret, out)
		}
	}
	d.SetLogger(nil)
	if _, err := d.Get(key("logged", 1)); err != nil {
		t.Fatal(err)
	}
	if strings.Count(logs.String(), "\n") != strings.Count(out, "\n") {
		t.Fatalf("a driver whose logger was set to nil still logs")
	}
	if _, err := d.Get(key("logged", 9)); err != driver.ErrReleaseNotFound {
		t.Fatalf("Get of a missing key: %v", err)
	}
}
