package rowcheck

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/common"
)

// VerifyRun follows one press of V: the rows it decodes, and what they said. Once
// every row has answered it makes the result line, which is always shown, healthy
// or not.
type VerifyRun struct {
	// noun names what was verified ("revision", "latest revision"); scope,
	// when set, is added to the result: what was not verified.
	noun    string
	Scope   string
	pending map[string]bool
	total   int
	broken  []string
	writing []string
	failed  []string
}

// NewVerifyRun starts counting the checks of a verify, of records called noun.
func NewVerifyRun(noun string) *VerifyRun {
	return &VerifyRun{noun: noun, pending: map[string]bool{}}
}

// Ask counts a row sent to be verified, by its id.
func (v *VerifyRun) Ask(id string) { v.pending[id] = true; v.total++ }

// Already counts a row known broken without asking again.
func (v *VerifyRun) Already(label string) { v.total++; v.broken = append(v.broken, label) }

// Answer takes a row's result; done reports that every row has answered.
func (v *VerifyRun) Answer(id, label string, row kube.RevisionRow, err error) (done bool) {
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

// Result is the line V ends with.
func (v *VerifyRun) Result() tea.Cmd {
	n := human.Plural(v.total, v.noun, v.noun+"s")
	if len(v.broken)+len(v.writing)+len(v.failed) == 0 {
		return common.Status(fmt.Sprintf("%s verified ✓%s", n, v.Scope), false)
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
	return common.Status(fmt.Sprintf("%s verified: %s%s", n, strings.Join(parts, "; "), v.Scope), len(v.broken)+len(v.failed) > 0)
}

// RecheckDelay is how long a row whose record is being written by another writer
// waits before it is checked again.
var RecheckDelay = kube.WritingWindow

// RecheckMsg asks a screen to check a row again that was being written; see
// RecheckLater.
type RecheckMsg struct{ driver, Ns, Key, Rv string }

// Matches reports whether the message asks for the record of r as it is now.
func (m RecheckMsg) Matches(r kube.RevisionRow) bool {
	return RowDetailsMsg{Driver: m.driver, Ns: m.Ns, Key: m.Key, Rv: m.Rv}.Matches(r)
}

// RecheckLater asks to check row again once a writer has had time to finish.
func RecheckLater(row kube.RevisionRow) tea.Cmd {
	msg := RecheckMsg{driver: row.Driver, Ns: row.StorageNamespace, Key: row.Key, Rv: row.ResourceVersion}
	return tea.Tick(RecheckDelay, func(time.Time) tea.Msg { return msg })
}
