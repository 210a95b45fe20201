package releases

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sahilm/fuzzy"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
)

// ReleaseItem is one row of the release list and what is known about it beyond
// the listing.
type ReleaseItem struct {
	Row kube.ReleaseRow
	// Filled is set once the row's details (or chunk check) came back.
	Filled bool
	Err    error
	// reread, when set, is the latest record as the watch last saw it, whose
	// summary the row shows from the record's previous write (a status
	// rewrite, common.KeepSummary): fillVisible reads it again.
	reread *kube.RevisionRow
}

func (it *ReleaseItem) id() string { return common.RowID(it.Row.Latest) }

// namespaceView names what a client looks at, for titles and to tell answers
// for another view apart.
func namespaceView(c *kube.Client) string {
	cfg := c.Config()
	switch {
	case cfg.AllNamespaces:
		return common.AllNamespaces
	case cfg.Namespace == "":
		return "default"
	}
	return cfg.Namespace
}

// partialAnnouncement says in full what a partial listing left out, for the
// status line: the namespaces, then each store skipped with why.
func partialAnnouncement(partial *kube.PartialError, skipped *kube.StoreSkipError) string {
	var parts []string
	if partial != nil {
		parts = append(parts, partial.Error())
	}
	if skipped != nil {
		for _, d := range kube.AllDrivers {
			if err, ok := skipped.Skipped[d]; ok {
				parts = append(parts, fmt.Sprintf("The %s store was skipped: %s", kube.DriverLabel(d), common.ShortError(err)))
			}
		}
	}
	return strings.Join(parts, " · ")
}

// releaseID names a release across reloads: by store, storage namespace and name.
func releaseID(l kube.RevisionRow) string {
	return common.StoreOf(l.Driver) + ":" + l.StorageNamespace + "/" + l.Name
}

// errorText is err's message, "" for nil.
func errorText(err error) string {
	if err == nil {
		return ""
	}
	return table.OneLine(err.Error())
}

// matchReleases returns the indexes of the items that filter q keeps, in order.
func matchReleases(items []ReleaseItem, q string) []int {
	q = strings.TrimSpace(q)
	fuzzyQ, isFuzzy := strings.CutPrefix(q, "~")
	fuzzyQ = strings.TrimSpace(fuzzyQ)
	out := []int{}
	switch {
	case q == "" || (isFuzzy && fuzzyQ == ""):
		for i := range items {
			out = append(out, i)
		}
	case isFuzzy:
		hay := make([]string, len(items))
		for i, it := range items {
			l := it.Row.Latest
			hay[i] = fmt.Sprintf("%s/%s %s %s %s", common.ReleaseNamespace(l), l.Name, common.ChartText(l), l.Status, kube.DriverLabel(common.StoreOf(l.Driver)))
		}
		for _, m := range fuzzy.Find(fuzzyQ, hay) {
			out = append(out, m.Index)
		}
		slices.Sort(out)
	default:
		lq := strings.ToLower(q)
		for i, it := range items {
			if strings.Contains(strings.ToLower(it.Row.Latest.Name), lq) {
				out = append(out, i)
			}
		}
	}
	return out
}

// pickKind is what the open picker chooses.
type pickKind int

const (
	pickNamespace pickKind = iota
	pickContext
)
