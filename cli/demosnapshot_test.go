package cli_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chunkview/chunkview/cli"
)

// TestDemoFromSnapshot: a whole-demo command started from the snapshot the
// first one kept shows what a freshly seeded demo shows, the same rows and
// the same ages, though it runs hours later: the demo's clock starts at the
// snapshot's moment. The second start reads the snapshot rather than seeding
// (the file is left as it was).
func TestDemoFromSnapshot(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)
	at := func(t time.Time) func() time.Time { return func() time.Time { return t } }
	dir := t.TempDir()
	for _, args := range [][]string{{"ls", "-A"}, {"verify"}, {"gc", "--dry-run"}, {"__complete", "history", ""}} {
		fresh := runDemo(t, &cli.App{Now: at(t0), DemoCache: "off"}, args...)
		first := runDemo(t, &cli.App{Now: at(t0), DemoCache: dir}, args...)
		files, _ := filepath.Glob(filepath.Join(dir, "demo-demo-*.snap"))
		if len(files) != 1 {
			t.Fatalf("%v: snapshots kept: %v", args, files)
		}
		before, err := os.Stat(files[0])
		if err != nil {
			t.Fatal(err)
		}
		later := runDemo(t, &cli.App{Now: at(t0.Add(5 * time.Hour)), DemoCache: dir}, args...)
		for name, r := range map[string]result{"the first start": first, "a start 5h later from the snapshot": later} {
			if r.code != fresh.code || r.stdout != fresh.stdout || r.stderr != fresh.stderr {
				t.Errorf("%v: %s differs from a fresh demo:\n%s\nfresh:\n%s", args, name, r, fresh)
			}
		}
		after, err := os.Stat(files[0])
		if err != nil || !after.ModTime().Equal(before.ModTime()) {
			t.Errorf("%v: the snapshot was made again rather than read (%v)", args, err)
		}
	}
}
