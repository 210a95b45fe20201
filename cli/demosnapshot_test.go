package cli_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/kube"
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
	// The whole-demo commands, then commands on one release, which read the
	// snapshot once there is one: fix-stuck's JSON dates when the stuck
	// revision began, status the objects' ages.
	for _, args := range [][]string{{"ls", "-A"}, {"verify"}, {"gc", "--dry-run"}, {"__complete", "history", ""},
		{"fix-stuck", "payments-api", "-o", "json"}, {"status", "web-frontend"}} {
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
		// The oracle of the ages themselves: payments-api went pending 47
		// minutes before the demo's Now (demo.Seed).
		if args[0] == "ls" && !regexp.MustCompile(`payments-api .* pending-upgrade .* 47m `).MatchString(later.stdout) {
			t.Errorf("ls from the snapshot: payments-api is not 47m pending:\n%s", later.stdout)
		}
		after, err := os.Stat(files[0])
		if err != nil || !after.ModTime().Equal(before.ModTime()) {
			t.Errorf("%v: the snapshot was made again rather than read (%v)", args, err)
		}
	}
}

// TestDemoViewKeepsSnapshot: the view opens at once on a cold cache, and the
// snapshot is made beside it (on a cluster of its own, which the view's
// operator and operations never touch); the next view starts from it, every
// sample there from its first list.
func TestDemoViewKeepsSnapshot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var files []string
	app := &cli.App{DemoCache: dir, TUITerminal: func(io.Reader, io.Writer) bool { return true },
		TUI: func(context.Context, *kube.Client, cli.Session) error {
			for deadline := time.Now().Add(2 * time.Minute); len(files) == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				files, _ = filepath.Glob(filepath.Join(dir, "demo-demo-*.snap"))
			}
			return nil
		}}
	mustCode(t, runDemo(t, app), cli.ExitOK)
	if len(files) != 1 {
		t.Fatalf("the view kept no snapshot: %v", files)
	}
	var first []kube.ReleaseRow
	app = &cli.App{DemoCache: dir, TUITerminal: func(io.Reader, io.Writer) bool { return true },
		TUI: func(ctx context.Context, c *kube.Client, _ cli.Session) error {
			var err error
			first, err = c.Releases(ctx)
			return err
		}}
	mustCode(t, runDemo(t, app), cli.ExitOK)
	if len(first) != 9 {
		t.Errorf("the view started from the snapshot lists %d releases at once, want the 9 samples", len(first))
	}
}
