package main

import (
	"strings"
	"testing"
)

// TestReportParts: make bench and make bench-large each rewrite their own part of
// BENCHMARKS.md and keep the other's, the large fleet's target rows included, and
// the part measured by hand.
func TestReportParts(t *testing.T) {
	small := func(v string) string {
		return "# chunkview benchmarks\n\nsmall " + v + "\n\n## Targets\n\n| target | measured | |\n|---|---|---|\n| small target | " + v + " | met |\n\nTotal run time: " + v + ".\n"
	}
	large := func(v string) string {
		return "## The large fleet\n\nlarge " + v + "\n\n### Targets at 20000 revisions\n\n| target | measured | |\n|---|---|---|\n" +
			largeTargetPrefix + "a | " + v + " | met |\n" + largeTargetPrefix + "b | " + v + " | **missed** |\n\nLarge fleet run time: " + v + ".\n"
	}
	hand := handMarker + "\n## Live view\n\nby hand\n"

	// A large run on a report with no large section yet.
	doc := mergeLarge(small("s1")+"\n"+hand, large("l1"))
	// A small run after it, then a second large run.
	doc2 := mergeSmall(doc, small("s2"))
	doc3 := mergeLarge(doc2, large("l2"))

	for _, c := range []struct {
		name, doc        string
		smallV, largeV   string
		wantRowsInTarget int
	}{
		{"large after small", doc, "s1", "l1", 2},
		{"small after large", doc2, "s2", "l1", 2},
		{"large again", doc3, "s2", "l2", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := c.doc
			if !strings.HasPrefix(d, "# chunkview benchmarks\n\nsmall "+c.smallV+"\n") {
				t.Fatalf("the small report is not first, or not version %s:\n%s", c.smallV, d)
			}
			li, hi := strings.Index(d, largeMarker), strings.Index(d, handMarker)
			if li < 0 || hi < 0 || li > hi {
				t.Fatalf("want the large marker before the hand marker:\n%s", d)
			}
			if !strings.Contains(d[li:hi], "large "+c.largeV+"\n") {
				t.Fatalf("the large section is not version %s:\n%s", c.largeV, d)
			}
			if !strings.HasSuffix(d, hand) {
				t.Fatalf("the part measured by hand is not kept at the end:\n%s", d)
			}
			// The small Targets table: its own row, then the large rows of the
			// current large section, once each.
			tbl := d[strings.Index(d, "## Targets"):li]
			if !strings.Contains(tbl, "| small target | "+c.smallV+" | met |\n"+largeTargetPrefix+"a | "+c.largeV+" | met |\n"+largeTargetPrefix+"b | "+c.largeV+" | **missed** |\n\nTotal run time") {
				t.Fatalf("the Targets table does not end with the large rows of version %s:\n%s", c.largeV, tbl)
			}
			if n := strings.Count(tbl, largeTargetPrefix); n != c.wantRowsInTarget {
				t.Fatalf("%d large rows in the Targets table, want %d:\n%s", n, c.wantRowsInTarget, tbl)
			}
		})
	}
}
