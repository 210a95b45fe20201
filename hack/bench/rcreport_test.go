package main

import (
	"strings"
	"testing"
)

// TestReconcileSection: make bench-reconcile writes its section once, rewrites it
// in place, and make bench and make bench-large keep it (it sits in the part they
// keep, after the hand-measured part's marker).
func TestReconcileSection(t *testing.T) {
	base := "# chunkview benchmarks\n\nsmall s1\n\n" + handMarker + "\n## Live view\n\nhand-measured body\n"
	doc := mergeReconcile(base, "## Reconcile r1\n")
	doc = mergeReconcile(doc, "## Reconcile r2\n")
	doc = mergeSmall(doc, "# chunkview benchmarks\n\nsmall s2\n")
	doc = mergeLarge(doc, "## The large fleet\n\nlarge l1\n")
	for _, want := range []string{"small s2", "large l1", "hand-measured body", "## Reconcile r2"} {
		if strings.Count(doc, want) != 1 {
			t.Errorf("the report holds %q %d times, want once:\n%s", want, strings.Count(doc, want), doc)
		}
	}
	if strings.Contains(doc, "r1") || strings.Count(doc, reconcileBegin) != 1 || strings.Count(doc, reconcileEnd) != 1 {
		t.Errorf("the reconcile section was not rewritten in place:\n%s", doc)
	}
	if i, j := strings.Index(doc, handMarker), strings.Index(doc, reconcileBegin); i < 0 || j < i {
		t.Errorf("the reconcile section is not in the part the other runs keep:\n%s", doc)
	}
}
