package history

import (
	"errors"
	"strings"
	"testing"

	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/internal/screentest"
)

// TestPermissionsDisableActions: a user who may only read the records sees every
// action marked as denied; pressing one explains what is missing in a dialog and
// sends nothing.
func TestPermissionsDisableActions(t *testing.T) {
	f := screentest.NewFixture(t)
	f.Cluster.Authorize(screentest.AllowSecrets("default", "get", "list"))
	s, h := open(t, f.Client, "worker", 120, 37)
	if s.perms == nil {
		t.Fatal("the history did not learn the user's permissions")
	}
	h.Contains("⊘ R X U F P A off: you may not create, update, patch, delete, deletecollection secrets in default")
	for _, col := range s.Help().Full {
		for _, b := range col {
			if b.Help().Key == "R" && b.Help().Desc != "roll back here (denied)" {
				t.Errorf("the help offers R as %q", b.Help().Desc)
			}
		}
	}
	f.Cluster.ResetRequests()
	for _, tc := range []struct{ key, heading, needs, key2 string }{
		{"R", "rollback worker: not permitted", "rollback needs permission to create, update, patch, delete secrets in namespace default", "rollback needs permission"},
		{"X", "delete-revision worker: not permitted", "delete-revision needs permission to delete, deletecollection secrets", "delete-revision needs permission"},
		{"U", "uninstall worker: not permitted", "uninstall needs permission to create, update, delete, deletecollection secrets", "uninstall needs permission"},
		{"F", "fix-stuck worker: not permitted", "fix-stuck needs permission to create, update, patch, delete, deletecollection", "fix-stuck needs permission"},
	} {
		h.Press(tc.key).Contains(tc.heading, "✗ Forbidden: "+tc.key2, "nothing was sent to the")
		if d := s.confirm; d == nil || !strings.Contains(d.Failure(), tc.needs) || !strings.Contains(d.Failure(), "kubectl auth can-i") {
			t.Fatalf("%s: the dialog does not say %q", tc.key, tc.needs)
		}
		h.Press("enter").Lacks(tc.heading)
	}
	if n := f.Cluster.Writes(); n != 0 {
		t.Fatalf("denied actions sent %d writes", n)
	}
	if n := f.Cluster.Requests()[fakeapi.VerbAccessReview]; n != 0 {
		t.Fatalf("pressing the keys asked the server %d more times; the answer is kept", n)
	}

	// Granted the rights (a new RoleBinding, say), r asks again and the actions
	// come back.
	f.Cluster.Authorize(nil)
	h.Press("r").Lacks("⊘").Press("U").Contains("Type the release name")
}

// TestPermissionsPartlyAllowed: a user who may delete records but not write them
// may delete a revision, and only the other actions are marked.
func TestPermissionsPartlyAllowed(t *testing.T) {
	f := screentest.NewFixture(t)
	f.Cluster.Authorize(screentest.AllowSecrets("default", "get", "list", "delete", "deletecollection"))
	_, h := open(t, f.Client, "worker", 120, 37)
	h.Contains("⊘ R U F A off: you may not create, update, patch secrets in default")
	h.Press("X").Contains("Type the release name").Lacks("not permitted")
	h.Press("esc", "R").Contains("rollback worker: not permitted")
}

// TestPermissionsUnknown: when the server cannot say what the user may do, the
// actions stay on and the server decides each one.
func TestPermissionsUnknown(t *testing.T) {
	f := screentest.NewFixture(t)
	// Every review fails: the rules review, then each access review asked
	// in its stead.
	for i := range len(kube.Operations) * 2 {
		f.Cluster.FailRequest(fakeapi.VerbAccessReview, i+1, errors.New("authorization webhook unavailable"))
	}
	s, h := open(t, f.Client, "worker", 120, 37)
	if s.perms != nil {
		t.Fatal("permissions were set from failed reviews")
	}
	h.Lacks("(denied)", "⊘").Press("U").Contains("Type the release name")
}

// TestPermissionsNarrowTerminal: at 80 columns the line about denied actions is
// shortened, not cut.
func TestPermissionsNarrowTerminal(t *testing.T) {
	f := screentest.NewFixture(t)
	f.Cluster.Authorize(screentest.AllowSecrets("default", "get", "list"))
	_, h := open(t, f.Client, "worker", 80, 21)
	h.Contains("⊘ R X U F P A off: too few rights on secrets in default; press one for why")
}
