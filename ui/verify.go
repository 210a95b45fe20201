package ui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
)

// verifyRun follows one press of V: the rows it decodes, and what they said. Once
// every row has answered it makes the result line, which is always shown, healthy
// or not.
type verifyRun struct {
	// noun names what was verified ("revision", "latest revision"); scope,
	// when set, is added to the result: what was not verified.
	noun    string
	scope   string
	pending map[string]bool
	total   int
	broken  []string
	writing []string
	failed  []string
}

func newVerifyRun(noun string) *verifyRun {
	return &verifyRun{noun: noun, pending: map[string]bool{}}
}

// ask counts a row sent to be verified, by its id.
func (v *verifyRun) ask(id string) { v.pending[id] = true; v.total++ }

// already counts a row known broken without asking again.
func (v *verifyRun) already(label string) { v.total++; v.broken = append(v.broken, label) }

// answer takes a row's result; done reports that every row has answered.
func (v *verifyRun) answer(id, label string, row kube.RevisionRow, err error) (done bool) {
	if !v.pending[id] {
		return false
	}
	delete(v.pending, id)
	switch {
	case err != nil:
		v.failed = append(v.failed, label)
	case row.Broken:
		v.broken = append(v.broken, label)
	case row.Writing:
		v.writing = append(v.writing, label)
	}
	return len(v.pending) == 0
}

// result is the line V ends with.
func (v *verifyRun) result() tea.Cmd {
	n := human.Plural(v.total, v.noun, v.noun+"s")
	if len(v.broken)+len(v.writing)+len(v.failed) == 0 {
		return status(fmt.Sprintf("%s verified ✓%s", n, v.scope), false)
	}
	var parts []string
	if len(v.broken) > 0 {
		parts = append(parts, fmt.Sprintf("✗ %d broken (%s)", len(v.broken), strings.Join(v.broken, ", ")))
	}
	if len(v.writing) > 0 {
		parts = append(parts, fmt.Sprintf("%d being written, checked again shortly (%s)", len(v.writing), strings.Join(v.writing, ", ")))
	}
	if len(v.failed) > 0 {
		parts = append(parts, fmt.Sprintf("%d could not be read (%s)", len(v.failed), strings.Join(v.failed, ", ")))
	}
	return status(fmt.Sprintf("%s verified: %s%s", n, strings.Join(parts, "; "), v.scope), len(v.broken)+len(v.failed) > 0)
}

// recheckDelay is how long a row whose record is being written by another writer
// waits before it is checked again.
var recheckDelay = kube.WritingWindow

// recheckMsg asks a screen to check a row again that was being written; see
// recheckLater.
type recheckMsg struct{ driver, ns, key, rv string }

// matches reports whether the message asks for the record of r as it is now.
func (m recheckMsg) matches(r kube.RevisionRow) bool {
	return rowDetailsMsg{driver: m.driver, ns: m.ns, key: m.key, rv: m.rv}.matches(r)
}

func recheckLater(row kube.RevisionRow) tea.Cmd {
	msg := recheckMsg{driver: row.Driver, ns: row.StorageNamespace, key: row.Key, rv: row.ResourceVersion}
	return tea.Tick(recheckDelay, func(time.Time) tea.Msg { return msg })
}
