package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// tableOf renders the mutants as markdown, with their results when given.
func tableOf(ms []mutant, results []result) string {
	var b strings.Builder
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	if results == nil {
		b.WriteString("| mutant | file | change | guarantee broken | killing tests |\n|---|---|---|---|---|\n")
		for _, m := range ms {
			fmt.Fprintf(&b, "| %s | %s | `%s` → `%s` | %s | %s |\n", m.Name, m.File, esc(m.Find), esc(m.Replace), esc(m.Guarantee), esc(targets(m.Kill)))
		}
		return b.String()
	}
	counts := map[string]int{}
	b.WriteString("| mutant | file | guarantee broken | killing tests | result |\n|---|---|---|---|---|\n")
	for _, r := range results {
		counts[r.outcome]++
		res := r.outcome
		if len(r.by) > 0 {
			res += ": " + strings.Join(r.by, "; ")
		}
		if r.detail != "" {
			res += " (" + r.detail + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.m.Name, r.m.File, esc(r.m.Guarantee), esc(targets(r.m.Kill)), esc(res))
	}
	fmt.Fprintf(&b, "\nScore: %d of %d killed", counts[killed], len(results)-counts[equiv])
	for _, o := range []string{survived, stale, invalid, unproven, equiv} {
		if counts[o] > 0 {
			fmt.Fprintf(&b, ", %d %s", counts[o], strings.ToLower(o))
		}
	}
	b.WriteString(".\n\n| package mutated | killed | mutants |\n|---|---|---|\n")
	var pkgs []string
	perPkg := map[string][2]int{}
	for _, r := range results {
		if r.outcome == equiv {
			continue
		}
		pkg := filepath.ToSlash(filepath.Dir(r.m.File))
		n, ok := perPkg[pkg]
		if !ok {
			pkgs = append(pkgs, pkg)
		}
		if r.outcome == killed {
			n[0]++
		}
		n[1]++
		perPkg[pkg] = n
	}
	slices.Sort(pkgs)
	for _, pkg := range pkgs {
		fmt.Fprintf(&b, "| %s | %d | %d |\n", pkg, perPkg[pkg][0], perPkg[pkg][1])
	}
	return b.String()
}

func targets(ts []target) string {
	var s []string
	for _, t := range ts {
		s = append(s, fmt.Sprintf("`%s` %s", t.Pkg, t.Run))
	}
	return strings.Join(s, ", ")
}
