package common

import (
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/render"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/theme"
)

// A release may be kept in one of three stores (kube.AllDrivers), and the same
// name may be held by two of them. Every screen opened from a row reads through a
// client narrowed to the row's store, so it never meets kube.ErrAmbiguous, and
// speaks of what that store keeps: chunk Secrets, or one Secret or ConfigMap per
// revision.

// ReadsSeveralStores reports whether the client lists more than one store, which
// is when a row needs to say which one it came from.
func ReadsSeveralStores(c *kube.Client) bool { return len(c.Config().Drivers) > 1 }

// ObjectNoun names what holds one revision in store d, for sentences.
func ObjectNoun(d string) string {
	switch StoreOf(d) {
	case kube.DriverSecret:
		return "Secret"
	case kube.DriverConfigMap:
		return "ConfigMap"
	}
	return "index Secret and its chunk Secrets"
}

// StoreDescription says in a few words how store d keeps a revision.
func StoreDescription(d string) string {
	switch StoreOf(d) {
	case kube.DriverSecret:
		return "Helm's Secrets driver, one Secret per revision"
	case kube.DriverConfigMap:
		return "Helm's ConfigMaps driver, one ConfigMap per revision"
	}
	return "an index Secret and chunk Secrets per revision"
}

// LayoutNoun is what c opens for a row of store d.
func LayoutNoun(d string) string {
	if IsHelmStore(d) {
		return "record layout"
	}
	return "chunk layout"
}

// LayoutKey is binding b (c) as the help shows it for a row of store d: a Helm
// record has no chunks to lay out, only itself.
func LayoutKey(b key.Binding, d string) key.Binding {
	if !IsHelmStore(d) {
		return b
	}
	h := b.Help()
	return key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(h.Key, LayoutNoun(d)))
}

// FillWarn is the share of its store's limit from which a revision is drawn
// as a warning (render.FillWarn).
const FillWarn = render.FillWarn

// FillStyle picks how a share of the store's limit reads: a mark that works
// without colour, and a colour, by what render says it means.
func FillStyle(s *theme.Styles, share float64) (mark string, st *lipgloss.Style) {
	m, mark := render.FillMeaning(share)
	switch m {
	case render.Failed:
		return mark, &s.Error
	case render.Warning:
		return mark, &s.Warning
	}
	return " ", &s.GaugeLow
}

// FillCell draws a revision's share of its store's limit as a small bar, the
// percentage and a mark past FillWarn; render's words when the limit or the
// size is not known.
func FillCell(s *theme.Styles, row kube.RevisionRow, width int) table.Cell {
	c := render.FillCell(row, screen)
	share := row.Fill()
	if share <= 0 {
		return table.Plain(c.Text)
	}
	mark, st := FillStyle(s, share)
	label := fmt.Sprintf(" %4s", c.Text)
	b := table.Bar(share, max(width-len(label)-1, 1), st, &s.GaugeEmpty)
	return table.Cell{Text: b + st.Render(label+mark)}
}

// LimitSize formats a store's limit as people say it: "1 MiB", not "1.0 MiB".
func LimitSize(n int64) string { return strings.Replace(human.Bytes(n), ".0 ", " ", 1) }

// SkipNote is the short form of a listing's skipped stores, for the list's
// footer: which store, and why in a few words.
func SkipNote(skip *kube.StoreSkipError) string {
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
	msg := table.OneLine(err.Error())
	if errors.Is(err, kube.ErrForbidden) {
		msg = strings.TrimPrefix(msg, kube.ErrForbidden.Error()+": ")
		msg = strings.TrimPrefix(msg, "your credentials ")
	}
	if i := strings.Index(msg, ". "); i > 0 {
		msg = msg[:i]
	}
	return msg
}
