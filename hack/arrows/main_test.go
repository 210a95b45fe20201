package main

import (
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestNoUphillArrows holds the packages whose files were put in order (issue 31)
// to it: no file uses a name of a file that uses one of its own, directly or
// through others. A new arrow that closes a cycle fails here, naming it.
func TestNoUphillArrows(t *testing.T) {
	cfg := &packages.Config{Dir: "../..", Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
		packages.NeedTypes | packages.NeedTypesInfo}
	held := []string{"./kube", "./kube/live", "./kube/ops", "./ui", "./ui/screens/history", "./ui/screens/releases", "./ui/screens/chunks", "./render", "./kube/owner", "./storage", "./revdiff", "./ui/common", "./ui/components/sizechart", "./ui/screens/revision", "./ui/screens/rollback", "./ui/screens/status", "./ui/screens/diff", "./fit"}
	pkgs, err := packages.Load(cfg, held...)
	if err != nil {
		t.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 || len(pkgs) != len(held) {
		t.Fatalf("loaded %d packages, want %d", len(pkgs), len(held))
	}
	for _, p := range pkgs {
		arrows := fileArrows(p)
		if len(arrows) < len(p.Syntax)/2 {
			t.Errorf("%s: %d arrows between %d files: the analysis finds none", p.PkgPath, len(arrows), len(p.Syntax))
		}
		var up []string
		for a := range onCycles(arrows) {
			up = append(up, a.from+" → "+a.to)
		}
		if len(up) > 0 {
			t.Errorf("%s: %d uphill arrows (files that lean on each other): %s", p.PkgPath, len(up), strings.Join(up, ", "))
		}
	}
}

// TestOnCyclesFindsACycle: the check above can fail: arrows that close a loop
// are all uphill, one that leaves it is not.
func TestOnCyclesFindsACycle(t *testing.T) {
	up := onCycles([]arrow{{"a.go", "b.go"}, {"b.go", "c.go"}, {"c.go", "a.go"}, {"c.go", "d.go"}})
	if len(up) != 3 || up[arrow{"c.go", "d.go"}] {
		t.Errorf("uphill %v, want the three arrows of the loop a → b → c → a", up)
	}
}
