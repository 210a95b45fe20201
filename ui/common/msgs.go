package common

import (
	"errors"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
)

// ActionKind names an operation that changes the cluster.
type ActionKind string

const (
	ActionRollback  ActionKind = "rollback"
	ActionUninstall ActionKind = "uninstall"
	ActionDelete    ActionKind = "delete-revision"
	ActionFixStuck  ActionKind = "fix-stuck"
	ActionPrune     ActionKind = "prune"
	ActionFixAPIs   ActionKind = "fix-apis"
)

// ActionDoneMsg reports an operation's outcome: text says what happened, err why
// it failed.
type ActionDoneMsg struct {
	Kind     ActionKind
	Ns, Name string
	rev      int
	Text     string
	Err      error
}

// RunAction applies an operation the screen showed and the person confirmed,
// and nothing else (apply; see kube/ops' Runner.Apply), on release name of
// namespace ns; done says what happened once it succeeded.
func RunAction(kind ActionKind, ns, name string, rev int, apply func() error, done func() string) tea.Cmd {
	return func() tea.Msg {
		msg := ActionDoneMsg{Kind: kind, Ns: ns, Name: name, rev: rev}
		if err := apply(); err != nil {
			msg.Err = err
			return msg
		}
		msg.Text = done()
		return msg
	}
}

// AfterAction is what a screen does once an operation answered: on success, or
// when the release turned out to have changed under the plan (kube.ErrChanged:
// nothing or part of it was applied), every screen showing the release reads it
// again. The user decides anew from what it shows; nothing is retried.
func AfterAction(msg ActionDoneMsg) tea.Cmd {
	if msg.Err == nil {
		return tea.Batch(Status(msg.Text, false), releaseChanged(msg.Ns, msg.Name))
	}
	if errors.Is(msg.Err, kube.ErrChanged) {
		return tea.Batch(Status(ShortError(msg.Err), true), releaseChanged(msg.Ns, msg.Name))
	}
	return Status(ShortError(msg.Err), true)
}

// ReleaseChangedMsg tells every screen that a release's records changed, so the
// screens showing it reload.
type ReleaseChangedMsg struct{ Ns, Name string }

func releaseChanged(ns, name string) tea.Cmd {
	return func() tea.Msg { return ReleaseChangedMsg{Ns: ns, Name: name} }
}

// PushMsg opens a screen on top of the current one; PopMsg closes the top one.
type (
	PushMsg struct{ S Screen }
	PopMsg  struct{ Status string }
)

// Push opens screen s on top of the current one.
func Push(s Screen) tea.Cmd { return func() tea.Msg { return PushMsg{S: s} } }

// Pop closes the top screen and puts status in the status line.
func Pop(status string) tea.Cmd { return func() tea.Msg { return PopMsg{Status: status} } }

// StatusMsg puts a line in the status bar.
type StatusMsg struct {
	Text string
	Err  bool
}

// Status puts text in the status line, as an error when isErr.
func Status(text string, isErr bool) tea.Cmd {
	return func() tea.Msg { return StatusMsg{Text: text, Err: isErr} }
}

// ToggleWatchMsg turns the live view on or off.
type ToggleWatchMsg struct{}

// ToggleWatch turns the live view on or off.
func ToggleWatch() tea.Msg { return ToggleWatchMsg{} }

// LiveMsg carries one event of the watch started gen-th; events of an earlier
// watch (switched off, or of another namespace view) are dropped.
type LiveMsg struct {
	Gen int
	Ev  kube.WatchEvent
}

// OpenCtxPickerMsg opens the context picker over the release list (:ctx).
type OpenCtxPickerMsg struct{}

// AllNamespaces is the namespace picker's entry for looking at every namespace,
// and the name of that view.
const AllNamespaces = "all namespaces"

// NamespaceChosenMsg switches the release list to a namespace, or to all of
// them (:ns, or the picker); the live view follows it.
type NamespaceChosenMsg struct {
	Ns  string
	All bool
}

// ContextChosenMsg asks to switch to kube context name (:ctx NAME, or the
// picker).
type ContextChosenMsg struct{ Name string }
