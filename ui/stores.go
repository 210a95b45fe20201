package ui

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
)

// A release may be kept in one of three stores (kube.AllDrivers), and the same
// name may be held by two of them. Every screen opened from a row reads through a
// client narrowed to the row's store, so it never meets kube.ErrAmbiguous, and
// speaks of what that store keeps: chunk Secrets, or one Secret or ConfigMap per
// revision.

// storeOf returns store d, chunked when unset: rows written before stores existed,
// and rows tests build by hand, leave it empty.
func storeOf(d string) string {
	if d == "" {
		return kube.DriverChunked
	}
	return d
}

// isHelmStore reports whether d is one of Helm's own drivers, which keep each
// revision whole in one object.
func isHelmStore(d string) bool {
	d = storeOf(d)
	return d == kube.DriverSecret || d == kube.DriverConfigMap
}

// sameStore reports whether two stores are the same, an unset one being chunked.
func sameStore(a, b string) bool { return storeOf(a) == storeOf(b) }

// forRow returns c reading through the store of row only: a release of the same
// name in another store is another release.
func (c common) forRow(row kube.RevisionRow) common {
	return c.withClient(c.client.WithDrivers(storeOf(row.Driver)))
}

// readsSeveralStores reports whether the client lists more than one store, which
// is when a row needs to say which one it came from.
func readsSeveralStores(c *kube.Client) bool { return len(c.Config().Drivers) > 1 }

// objectNoun names what holds one revision in store d, for sentences.
func objectNoun(d string) string {
	switch storeOf(d) {
	case kube.DriverSecret:
		return "Secret"
	case kube.DriverConfigMap:
		return "ConfigMap"
	}
	return "index Secret and its chunk Secrets"
}

// storeDescription says in a few words how store d keeps a revision.
func storeDescription(d string) string {
	switch storeOf(d) {
	case kube.DriverSecret:
		return "Helm's Secrets driver, one Secret per revision"
	case kube.DriverConfigMap:
		return "Helm's ConfigMaps driver, one ConfigMap per revision"
	}
	return "an index Secret and chunk Secrets per revision"
}

// layoutNoun is what c opens for a row of store d.
func layoutNoun(d string) string {
	if isHelmStore(d) {
		return "record layout"
	}
	return "chunk layout"
}

// layoutKey is binding b (c) as the help shows it for a row of store d: a Helm
// record has no chunks to lay out, only itself.
func layoutKey(b key.Binding, d string) key.Binding {
	if !isHelmStore(d) {
		return b
	}
	h := b.Help()
	return key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(h.Key, layoutNoun(d)))
}

// Fill thresholds: at fillWarn of its store's limit a revision is drawn as a
// warning, at fillError as an error: a few more revisions of growth and the next
// upgrade fails.
const (
	fillWarn  = 0.80
	fillError = 0.95
)

// fillStyle picks how a share of the store's limit reads: a mark that works
// without colour, and a colour. It judges the percentage as shown, so that 95%
// never reads as a warning.
func (s *Styles) fillStyle(share float64) (mark string, st *lipgloss.Style) {
	share = math.Round(share*100) / 100
	switch {
	case share >= fillError:
		return "✗", &s.Error
	case share >= fillWarn:
		return "⚠", &s.Warning
	}
	return " ", &s.GaugeLow
}

// fillCell draws a revision's share of its store's limit as a small bar, the
// percentage and a mark past fillWarn; empty when the limit or the size is not
// known.
func (s *Styles) fillCell(row kube.RevisionRow, width int) cell {
	share := row.Fill()
	if share <= 0 {
		if row.Known && row.LimitBytes <= 0 {
			return plain("no limit")
		}
		return plain("")
	}
	mark, st := s.fillStyle(share)
	label := fmt.Sprintf(" %3d%%", int(share*100+0.5))
	b := bar(share, max(width-len(label)-1, 1), st, &s.GaugeEmpty)
	return cell{text: b + st.Render(label+mark)}
}

// limitSize formats a store's limit as people say it: "1 MiB", not "1.0 MiB".
func limitSize(n int64) string { return strings.Replace(human.Bytes(n), ".0 ", " ", 1) }

// skipNote is the short form of a listing's skipped stores, for the list's
// footer: which store, and why in a few words.
func skipNote(skip *kube.StoreSkipError) string {
	var parts []string
	for _, d := range kube.AllDrivers {
		if err, ok := skip.Skipped[d]; ok {
			parts = append(parts, kube.DriverLabel(d)+" store skipped: "+skipReason(err))
		}
	}
	return strings.Join(parts, "; ")
}

// skipReason is the first sentence of why a store was skipped, without the
// sentinel and the "your credentials" the footer has no room for.
func skipReason(err error) string {
	msg := oneLine(err.Error())
	if errors.Is(err, kube.ErrForbidden) {
		msg = strings.TrimPrefix(msg, kube.ErrForbidden.Error()+": ")
		msg = strings.TrimPrefix(msg, "your credentials ")
	}
	if i := strings.Index(msg, ". "); i > 0 {
		msg = msg[:i]
	}
	return msg
}
