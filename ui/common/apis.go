package common

import (
	"context"
	"fmt"
	"maps"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/apis"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/theme"
)

// Removed Kubernetes APIs (issue 30), as the screens say them: what the
// cluster serves comes from one discovery pass (kube.Checker.ServedAPIs, which
// later passes answer from its cache until the list is read again), and each
// revision is checked from the details cache, decoding nothing a screen had
// not decoded or would not.

// ServedMsg answers LoadServed: what the cluster serves. Err is set when it
// is not known (kube.ErrNoLive on the demo's cluster, which holds no objects):
// the screens then say nothing of APIs. Every screen takes it.
type ServedMsg struct {
	Served *apis.Served
	Err    error
}

// LoadServed reads what the cluster serves; afresh forgets the last pass
// first (the person asked to read again: a CRD may have dropped a version).
func LoadServed(ctx context.Context, c *kube.Client, afresh bool) tea.Cmd {
	return func() tea.Msg {
		if afresh {
			c.InvalidateDiscovery()
		}
		s, err := kube.NewChecker(c).ServedAPIs(ctx)
		return ServedMsg{Served: s, Err: err}
	}
}

// APIsMsg answers CheckAPIs: the reports of the rows checked, by RowID, for
// the Served they were checked against. A row that could not be decoded has
// none.
type APIsMsg struct {
	Served  *apis.Served
	Reports map[string]apis.Report
}

// CheckAPIs checks rows against served, through the details cache.
func CheckAPIs(ctx context.Context, c *kube.Client, served *apis.Served, rows []kube.RevisionRow) tea.Cmd {
	if served == nil || len(rows) == 0 {
		return nil
	}
	return func() tea.Msg {
		ptrs := make([]*kube.RevisionRow, len(rows))
		for i := range rows {
			ptrs[i] = &rows[i]
		}
		reps, _ := kube.NewChecker(c).CheckAPIsOf(ctx, ptrs, served, apis.Options{})
		out := APIsMsg{Served: served, Reports: map[string]apis.Report{}}
		for r, rep := range reps {
			out.Reports[RowID(*r)] = rep
		}
		return out
	}
}

// APIChecks is what a screen knows of its revisions' APIs: what the cluster
// serves, once known, and the report of each revision checked against it, by
// RowID. The release list and the history each keep one; the zero value knows
// nothing.
type APIChecks struct {
	// Served is what the cluster serves; nil until ServedMsg answers.
	Served  *apis.Served
	reports map[string]apis.Report
	asked   map[string]bool
}

// Take keeps what a ServedMsg or an APIsMsg says and returns true when it was
// one of them. A new Served forgets every report (a CRD may have dropped a
// version since); reports checked against another Served are dropped.
func (a *APIChecks) Take(msg tea.Msg) bool {
	switch msg := msg.(type) {
	case ServedMsg:
		if msg.Err == nil {
			a.Served, a.reports, a.asked = msg.Served, nil, nil
		}
		return true
	case APIsMsg:
		if msg.Served == a.Served && a.Served != nil {
			if a.reports == nil {
				a.reports = map[string]apis.Report{}
			}
			maps.Copy(a.reports, msg.Reports)
		}
		return true
	}
	return false
}

// Check checks the rows not asked of yet (and readable) against what the
// cluster serves, once that is known, through the details cache; nil when
// there is nothing to ask.
func (a *APIChecks) Check(ctx context.Context, c *kube.Client, rows []kube.RevisionRow) tea.Cmd {
	if a.Served == nil {
		return nil
	}
	if a.asked == nil {
		a.asked = map[string]bool{}
	}
	var ask []kube.RevisionRow
	for _, r := range rows {
		if id := RowID(r); !r.Broken && !a.asked[id] {
			a.asked[id] = true
			ask = append(ask, r)
		}
	}
	return CheckAPIs(ctx, c, a.Served, ask)
}

// Report is revision r's report, and whether it was checked.
func (a *APIChecks) Report(r kube.RevisionRow) (apis.Report, bool) {
	rep, ok := a.reports[RowID(r)]
	return rep, ok
}

// CannotUpgrade is revision r's report when it uses APIs the cluster no longer
// serves; false when it does not, or is not known to.
func (a *APIChecks) CannotUpgrade(r kube.RevisionRow) (apis.Report, bool) {
	rep, ok := a.Report(r)
	return rep, ok && rep.CannotUpgrade()
}

// Any reports whether any revision was checked.
func (a *APIChecks) Any() bool { return len(a.reports) > 0 }

// UnservedRefs names the objects of findings that use an API the cluster no
// longer serves, each with its apiVersion and what serves it now:
// "PodDisruptionBudget/web (policy/v1beta1 → policy/v1)", "(policy/v1beta1,
// nothing serves it now)" for a kind no version replaces.
func UnservedRefs(fs []apis.Finding) string {
	var out []string
	for _, f := range fs {
		if f.Problem != apis.Unserved {
			continue
		}
		ref := f.Ref() + " (" + f.APIVersion
		if f.Hook != "" {
			ref = f.Ref() + " (hook, " + f.APIVersion
		}
		if f.Successor != nil {
			ref += " → " + f.Successor.APIVersion + ")"
		} else {
			ref += ", nothing serves it now)"
		}
		out = append(out, ref)
	}
	return strings.Join(out, ", ")
}

// CannotUpgradeLines are the two lines that say Helm can no longer upgrade
// release name, in those words, and name the objects, for a screen's detail
// area of the given width: the first with the key that leads to the fix (""
// for none), the second the objects, cut at the width.
func CannotUpgradeLines(st *theme.Styles, name string, rep apis.Report, fix string, width int) (string, string) {
	first := fmt.Sprintf("✗ %s %s", apis.CannotUpgrade, name)
	if fix != "" {
		first += " · " + fix
	}
	return st.ErrorBold.Render(table.Line1(width, first)), st.Error.Render(table.Line1(width, "  not served: "+UnservedRefs(rep.Findings)))
}
