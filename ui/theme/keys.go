package theme

import (
	"charm.land/bubbles/v2/key"

	"github.com/chunkview/chunkview/ui/components/dialog"
	"github.com/chunkview/chunkview/ui/components/diffview"
	"github.com/chunkview/chunkview/ui/components/picker"
	"github.com/chunkview/chunkview/ui/components/search"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/components/viewer"
)

// KeyMap holds the key bindings of every screen. Each screen shows its part in the
// help line and, with the global keys, in the full help overlay.
type KeyMap struct {
	Global   GlobalKeyMap
	List     table.KeyMap
	Scroll   viewer.KeyMap
	Releases ReleasesKeyMap
	History  HistoryKeyMap
	Revision RevisionKeyMap
	Chunks   ChunksKeyMap
	Diff     DiffKeyMap
	Status   StatusKeyMap
	Pods     PodsKeyMap
	Log      LogKeyMap
	Dialog   dialog.KeyMap
	Picker   picker.KeyMap
	Search   search.KeyMap
	Changes  diffview.KeyMap
}

// GlobalKeyMap are the keys that work on every screen.
type GlobalKeyMap struct {
	Help key.Binding
	// Command opens the ":" command line (:ns NAME, :q), as in k9s.
	Command   key.Binding
	Back      key.Binding
	Quit      key.Binding
	ForceQuit key.Binding
}

// ReleasesKeyMap are the keys of the release list.
type ReleasesKeyMap struct {
	Open key.Binding
	// Status opens the resources view of the release's latest deployed
	// revision.
	Status    key.Binding
	Chunks    key.Binding
	Filter    key.Binding
	Namespace key.Binding
	Refresh   key.Binding
	Verify    key.Binding
	Watch     key.Binding
	// Accept and ClearFilter apply while the filter is being typed.
	Accept      key.Binding
	ClearFilter key.Binding
}

// HistoryKeyMap are the keys of a release's history.
type HistoryKeyMap struct {
	Open key.Binding
	// Status opens the resources view of the selected revision.
	Status key.Binding
	Chunks key.Binding
	Diff   key.Binding
	// Live compares the selected revision with the objects live in the
	// cluster, in the diff view.
	Live      key.Binding
	Mark      key.Binding
	Refresh   key.Binding
	Verify    key.Binding
	Rollback  key.Binding
	Delete    key.Binding
	Uninstall key.Binding
	FixStuck  key.Binding
	// Prune deletes old revision records, keeping the newest.
	Prune key.Binding
	// FixAPIs writes a revision whose manifest uses the API versions the
	// cluster serves (fix-apis), after its plan.
	FixAPIs key.Binding
	// Expand gives the selected revision's detail (a failure's whole reason)
	// every line but one row's, and takes it back.
	Expand key.Binding
}

// RevisionKeyMap are the keys of one revision's tabs.
type RevisionKeyMap struct {
	NextTab   key.Binding
	PrevTab   key.Binding
	Summary   key.Binding
	Values    key.Binding
	Manifest  key.Binding
	Notes     key.Binding
	Hooks     key.Binding
	Reveal    key.Binding
	AllValues key.Binding
	Chunks    key.Binding
	Diff      key.Binding
	// Copy puts the text of the tab shown on the clipboard (OSC 52).
	Copy key.Binding
}

// StatusKeyMap are the keys of the resources view.
type StatusKeyMap struct {
	Refresh key.Binding
	// Pods lists the Pods of the selected workload, with their events.
	Pods key.Binding
	// Logs shows a container's log of the selected workload (its failing
	// one first), Describe its conditions, owner, images and probes.
	Logs     key.Binding
	Describe key.Binding
}

// PodsKeyMap are the keys of a workload's Pods, beside the list's moves.
type PodsKeyMap struct {
	Refresh  key.Binding
	Logs     key.Binding
	Describe key.Binding
}

// LogKeyMap are the keys of a container's log, beside the scroll and search
// keys.
type LogKeyMap struct {
	// Follow streams the lines as they are written, and stops.
	Follow key.Binding
	// Previous shows the run before the last restart, and the current again.
	Previous key.Binding
	// Container shows the next container of the object's Pods.
	Container key.Binding
	Reveal    key.Binding
}

// ChunksKeyMap are the keys of the chunk layout.
type ChunksKeyMap struct {
	Refresh key.Binding
}

// DiffKeyMap are the keys of a diff, and of the rollback plan built on it,
// beside the diff viewer's own (Changes).
type DiffKeyMap struct {
	Reveal key.Binding
	// Copy puts the diff shown on the clipboard, as y does in a revision.
	Copy key.Binding
	// Confirm applies a rollback plan: a key of its own, never y (which
	// copies everywhere), named with what it does.
	Confirm key.Binding
}

// DefaultKeyMap returns chunkview's key bindings.
func DefaultKeyMap() KeyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	k := func(keys ...string) []string { return keys }
	return KeyMap{
		Global: GlobalKeyMap{
			Help:      b(k("?"), "?", "help"),
			Command:   b(k(":"), ":", "command (:ctx, :ns, :log, :q)"),
			Back:      b(k("esc"), "esc", "back"),
			Quit:      b(k("q"), "q", "quit"),
			ForceQuit: b(k("ctrl+c"), "ctrl+c", "quit"),
		},
		List:    table.DefaultKeyMap(),
		Scroll:  viewer.DefaultKeyMap(),
		Changes: diffview.DefaultKeyMap(),
		Releases: ReleasesKeyMap{
			Open:        b(k("enter"), "enter", "history"),
			Status:      b(k("s"), "s", "status"),
			Chunks:      b(k("c"), "c", "chunk layout"),
			Filter:      b(k("/"), "/", "filter"),
			Namespace:   b(k("n"), "n", "namespace"),
			Refresh:     b(k("r"), "r", "refresh"),
			Verify:      b(k("V"), "V", "verify rows on screen"),
			Watch:       b(k("w"), "w", "watch on/off"),
			Accept:      b(k("enter"), "enter", "keep filter"),
			ClearFilter: b(k("esc"), "esc", "clear filter"),
		},
		History: HistoryKeyMap{
			Open:      b(k("enter"), "enter", "open revision"),
			Status:    b(k("s"), "s", "status"),
			Chunks:    b(k("c"), "c", "chunk layout"),
			Diff:      b(k("d"), "d", "diff"),
			Live:      b(k("L"), "L", "diff with live"),
			Mark:      b(k("space", "m"), "space", "mark for diff"),
			Refresh:   b(k("r"), "r", "refresh"),
			Verify:    b(k("V"), "V", "verify all revisions"),
			Rollback:  b(k("R"), "R", "roll back here"),
			Delete:    b(k("X"), "X", "delete revision"),
			Uninstall: b(k("U"), "U", "uninstall"),
			FixStuck:  b(k("F"), "F", "fix stuck"),
			Prune:     b(k("P"), "P", "prune old revisions"),
			FixAPIs:   b(k("A"), "A", "fix removed APIs"),
			Expand:    b(k("e"), "e", "whole detail on/off"),
		},
		Revision: RevisionKeyMap{
			NextTab:   b(k("tab"), "tab", "next tab"),
			PrevTab:   b(k("shift+tab"), "shift+tab", "previous tab"),
			Summary:   b(k("1"), "1", "summary"),
			Values:    b(k("2"), "2", "values"),
			Manifest:  b(k("3"), "3", "manifest"),
			Notes:     b(k("4"), "4", "notes"),
			Hooks:     b(k("5"), "5", "hooks"),
			Reveal:    b(k("v"), "v", "reveal/mask secrets"),
			AllValues: b(k("a"), "a", "user/all values"),
			Chunks:    b(k("c"), "c", "chunk layout"),
			Diff:      b(k("d"), "d", "diff with previous"),
			Copy:      b(k("y"), "y", "copy the tab's text"),
		},
		Chunks: ChunksKeyMap{
			Refresh: b(k("r"), "r", "refresh"),
		},
		Status: StatusKeyMap{
			Refresh:  b(k("r"), "r", "read again"),
			Pods:     b(k("enter"), "enter", "Pods"),
			Logs:     b(k("l"), "l", "log"),
			Describe: b(k("d"), "d", "describe"),
		},
		Pods: PodsKeyMap{
			Refresh:  b(k("r"), "r", "read again"),
			Logs:     b(k("l"), "l", "log"),
			Describe: b(k("d"), "d", "describe"),
		},
		Log: LogKeyMap{
			Follow:    b(k("f"), "f", "follow on/off"),
			Previous:  b(k("p"), "p", "previous run on/off"),
			Container: b(k("tab"), "tab", "next container"),
			Reveal:    b(k("v"), "v", "reveal/mask secrets"),
		},
		Diff: DiffKeyMap{
			Reveal:  b(k("v"), "v", "reveal/mask secrets"),
			Copy:    b(k("y"), "y", "copy the diff"),
			Confirm: b(k("ctrl+r"), "ctrl+r", "roll back (apply the plan)"),
		},
		Search: search.DefaultKeyMap(),
		Dialog: dialog.DefaultKeyMap(),
		Picker: picker.DefaultKeyMap(),
	}
}

// DisableActions turns off every key that would change the cluster, for read-only
// mode. Disabled bindings neither match nor appear in help.
func (k *KeyMap) DisableActions() {
	for _, b := range []*key.Binding{&k.History.Rollback, &k.History.Delete, &k.History.Uninstall, &k.History.FixStuck, &k.History.Prune, &k.History.FixAPIs, &k.Diff.Confirm} {
		b.SetEnabled(false)
	}
}

// Bindings lists the bindings, for the help.
func (g GlobalKeyMap) Bindings() []key.Binding {
	return []key.Binding{g.Help, g.Back, g.Quit, g.Command}
}
