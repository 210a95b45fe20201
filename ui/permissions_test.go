package ui

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/screens/history"
	"github.com/chunkview/chunkview/ui/screens/releases"
)

// allowSecrets returns an authorizer that allows the given verbs on secrets in
// namespace ns and nothing else, as a Role bound in that namespace would.
func allowSecrets(ns string, verbs ...string) fakeapi.Authorizer {
	return func(gotNS, verb, resource string) (bool, string) {
		if resource == "secrets" && gotNS == ns && slices.Contains(verbs, verb) {
			return true, ""
		}
		return false, ""
	}
}

// TestPermissionsDisableActions: a user who may only read the records sees every
// action marked as denied; pressing one explains what is missing in a dialog and
// sends nothing.
func TestPermissionsDisableActions(t *testing.T) {
	f := newFixture(t)
	f.cluster.Authorize(allowSecrets("default", "get", "list"))
	h := newHarness(t, f.client, Options{}, 120, 40)
	h.press("G", "enter") // worker, stuck in pending-upgrade
	hs, ok := h.top().(*history.Screen)
	if !ok || hs.Perms == nil {
		t.Fatalf("the history did not learn the user's permissions: top %T", h.top())
	}
	h.contains("⊘ R X U F P off: you may not create, update, patch, delete, deletecollection secrets in default")
	h.press("?").contains("roll back here (denied)").press("esc")
	f.cluster.ResetRequests()
	for _, tc := range []struct{ key, heading, needs, key2 string }{
		{"R", "rollback worker: not permitted", "rollback needs permission to create, update, patch, delete secrets in namespace default", "rollback needs permission"},
		{"X", "delete-revision worker: not permitted", "delete-revision needs permission to delete, deletecollection secrets", "delete-revision needs permission"},
		{"U", "uninstall worker: not permitted", "uninstall needs permission to create, update, delete, deletecollection secrets", "uninstall needs permission"},
		{"F", "fix-stuck worker: not permitted", "fix-stuck needs permission to create, update, patch, delete, deletecollection", "fix-stuck needs permission"},
	} {
		h.press(tc.key).contains(tc.heading, "✗ Forbidden: "+tc.key2, "nothing was sent to the")
		if d := h.top().(*history.Screen).Dialog; d == nil || d.Err == nil || !strings.Contains(d.Err.Error(), tc.needs) || !strings.Contains(d.Err.Error(), "kubectl auth can-i") {
			t.Fatalf("%s: the dialog does not say %q", tc.key, tc.needs)
		}
		h.press("enter").lacks(tc.heading)
	}
	if n := f.cluster.Writes(); n != 0 {
		t.Fatalf("denied actions sent %d writes", n)
	}
	if n := f.cluster.Requests()[fakeapi.VerbAccessReview]; n != 0 {
		t.Fatalf("pressing the keys asked the server %d more times; the answer is kept", n)
	}

	// Granted the rights (a new RoleBinding, say), r asks again and the actions
	// come back.
	f.cluster.Authorize(nil)
	h.press("r").lacks("⊘", "(denied)").press("U").contains("Type the release name")
}

// TestPermissionsPartlyAllowed: a user who may delete records but not write them
// may delete a revision, and only the other actions are marked.
func TestPermissionsPartlyAllowed(t *testing.T) {
	f := newFixture(t)
	f.cluster.Authorize(allowSecrets("default", "get", "list", "delete", "deletecollection"))
	h := newHarness(t, f.client, Options{}, 120, 40)
	h.press("G", "enter")
	h.contains("⊘ R U F off: you may not create, update, patch secrets in default").lacks("delete revision (denied)")
	h.press("X").contains("Type the release name").lacks("not permitted")
	h.press("esc", "R").contains("rollback worker: not permitted")
}

// TestPermissionsUnknown: when the server cannot say what the user may do, the
// actions stay on and the server decides each one.
func TestPermissionsUnknown(t *testing.T) {
	f := newFixture(t)
	for range len(kube.Operations) * 2 {
		f.cluster.FailRequest(fakeapi.VerbAccessReview, 1, errors.New("authorization webhook unavailable"))
	}
	h := newHarness(t, f.client, Options{}, 120, 40)
	h.press("G", "enter")
	if hs := h.top().(*history.Screen); hs.Perms != nil {
		t.Fatal("permissions were set from failed reviews")
	}
	h.lacks("(denied)", "⊘").press("U").contains("Type the release name")
}

// TestPartialListing: a user who may not list across all namespaces sees the
// releases of the namespaces they may read, with a note on what is left out.
func TestPartialListing(t *testing.T) {
	f := newFixture(t)
	f.cluster.Authorize(allowSecrets("default", "get", "list"))
	cfg := testConfig()
	cfg.AllNamespaces = true
	client := kube.New(f.cluster.Clientset(), f.cluster.Metadata(), demo.DiscardKubeClients, cfg)
	h := newHarness(t, client, Options{}, 120, 40)
	h.contains("web", "worker", "⚠ 4 releases, from default only: other namespaces may not be read (--namespaces names more)")
	h.contains("only some namespaces could be read")
	h.lacks("cache", "Refresh failed")
	rs := h.top().(*releases.Screen)
	if len(rs.Items) != 4 || rs.Partial == nil {
		t.Fatalf("listed %d releases (partial %v), want default's 4 with a note", len(rs.Items), rs.Partial)
	}

	// A user who may read no namespace at all gets the error, not an empty list.
	f.cluster.Authorize(allowSecrets("nowhere", "get", "list"))
	h2 := newHarness(t, client, Options{}, 120, 40)
	h2.contains("Forbidden").lacks("releases, from")
}

// TestPermissionsNarrowTerminal: at 80 columns the line about denied actions is
// shortened, not cut.
func TestPermissionsNarrowTerminal(t *testing.T) {
	f := newFixture(t)
	f.cluster.Authorize(allowSecrets("default", "get", "list"))
	h := newHarness(t, f.client, Options{}, 80, 24)
	h.press("G", "enter").contains("⊘ R X U F P off: your rights on secrets in default fall short; press one for why")
}
