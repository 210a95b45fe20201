package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/kube"
)

// TestOperationRequests: a rollback and an uninstall of a four-object release
// that Helm 4 installed server-side into Helm's Secrets, run as a user runs
// them (the release located in every store, --yes), ask the cluster once for
// each thing they need besides what Helm's own actions ask: one
// SelfSubjectRulesReview (no access review: the rules grant it all), /api,
// /apis and /version once each (Helm's kube clients share the connection's
// discovery, whose cache on disk is cold here), no dry-run apply of objects
// whose every field Helm's own apply owns, the two revisions a rollback
// compares read in one list, and no listing of the records of its own before
// Helm's (Helm's first listing, held to the plan, checks it).
// BenchmarkOperationRequests counts them beside Helm 4's own actions.
func TestOperationRequests(t *testing.T) {
	e := newEnv(t)
	cache := filepath.Join(t.TempDir(), "helm")
	for _, tc := range []struct {
		args []string
		// recordReads are chunkview's own reads of the records: the
		// by-name listings that locate the release (one list of the
		// Secrets for the chunked store and Helm's Secrets, one of Helm's
		// ConfigMaps), and a rollback's one read of the two revisions it
		// compares.
		recordReads int
		max         int
	}{
		{args: []string{"rollback", "opsr", "--yes"}, recordReads: 3, max: 30},
		{args: []string{"uninstall", "opsu", "--yes"}, recordReads: 2, max: 21},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			opsRelease(t, e.kubeconfig, e.ns, cache, tc.args[1], 2)
			stats := &kube.Stats{}
			r := e.runApp(&cli.App{Stats: stats}, "", tc.args...)
			mustCode(t, r, cli.ExitOK)
			calls := stats.Calls()
			t.Logf("%s: %d requests:\n%s", tc.args[0], len(calls), strings.Join(calls, "\n"))
			kinds := opsKinds(calls)
			for kind, want := range map[string]int{"ssrr": 1, "ssar": 0, "discovery/api": 1, "discovery/apis": 1, "version": 1, "dryrun": 0, "controller": 0} {
				if kinds[kind] != want {
					t.Errorf("%d %s requests, want %d", kinds[kind], kind, want)
				}
			}
			// chunkview's own reads of the records: everything but Helm's
			// (Helm lists without a limit, chunkview's listings page).
			own := 0
			for _, c := range calls {
				if strings.HasPrefix(opsKind(c), "records GET") && (strings.Contains(c, "limit=") || strings.Contains(c, "version+in") || strings.Contains(c, "version%20in")) {
					own++
				}
			}
			if own != tc.recordReads {
				t.Errorf("chunkview read the records %d times, want %d (locating the release in the Secrets and the ConfigMaps, and a rollback's plan reading two revisions in one list)", own, tc.recordReads)
			}
			if len(calls) > tc.max {
				t.Errorf("%s made %d requests, want at most %d", tc.args[0], len(calls), tc.max)
			}
		})
	}
}
