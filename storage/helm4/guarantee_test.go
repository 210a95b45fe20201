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
	helmstorage "helm.sh/helm/v4/pkg/storage"
	"helm.sh/helm/v4/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage/chunked"
	"github.com/chunkview/chunkview/storage/helm4"
)

// The guarantees of the core are tested against both adapters by storage's tests;
// these hold the Helm 4 adapter to them through Helm 4's own storage layer, as
// Helm 4's actions use it.

// TestWithContext: a call of a copy made by WithContext runs under its context,
// and a cancelled one fails with context.Canceled; the driver it was made from
// goes on working.
func TestWithContext(t *testing.T) {
	_, secrets := newNamespace(t)
	d := helm4.NewDriver(secrets, testOwner, chunked.Config{ChunkSize: chunkSize})
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

// TestLogger: Helm 4's chunked.Init takes up the driver's logger, as it does a
// Helm 4 driver's; the driver logs through it at debug level, with the keys it
// works on and never the release's data, and so do the copies Expect makes.
func TestLogger(t *testing.T) {
	_, secrets := newNamespace(t)
	d := helm4.NewDriver(secrets, testOwner, chunked.Config{ChunkSize: chunkSize})
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
