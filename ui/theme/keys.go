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
	return KeyMap{
		Global:   defaultGlobal(),
		List:     table.DefaultKeyMap(),
		Scroll:   viewer.DefaultKeyMap(),
		Changes:  diffview.DefaultKeyMap(),
		Releases: defaultReleases(),
		History:  defaultHistory(),
		Revision: defaultRevision(),
		Chunks: ChunksKeyMap{
			Refresh: bind("refresh", "r"),
		},
		Status: StatusKeyMap{
			Refresh:  bind("read again", "r"),
			Pods:     bind("Pods", "enter"),
			Logs:     bind("log", "l"),
			Describe: bind("describe", "d"),
		},
		Pods: PodsKeyMap{
			Refresh:  bind("read again", "r"),
			Logs:     bind("log", "l"),
			Describe: bind("describe", "d"),
		},
		Log: LogKeyMap{
			Follow:    bind("follow on/off", "f"),
			Previous:  bind("previous run on/off", "p"),
			Container: bind("next container", "tab"),
			Reveal:    bind("reveal/mask secrets", "v"),
		},
		Diff: DiffKeyMap{
			Reveal:  bind("reveal/mask secrets", "v"),
			Copy:    bind("copy the diff", "y"),
			Confirm: bind("roll back (apply the plan)", "ctrl+r"),
		},
		Search: search.DefaultKeyMap(),
		Dialog: dialog.DefaultKeyMap(),
		Picker: picker.DefaultKeyMap(),
	}
}

// bind is a binding whose help names its first key.
func bind(desc string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(keys[0], desc))
}

// defaultGlobal is the keys every screen has.
func defaultGlobal() GlobalKeyMap {
	return GlobalKeyMap{
		Help:      bind("help", "?"),
		Command:   bind("command (:ctx, :ns, :log, :q)", ":"),
		Back:      bind("back", "esc"),
		Quit:      bind("quit", "q"),
		ForceQuit: bind("quit", "ctrl+c"),
	}
}

// defaultReleases is the release list's keys.
func defaultReleases() ReleasesKeyMap {
	return ReleasesKeyMap{
		Open:        bind("history", "enter"),
		Status:      bind("status", "s"),
		Chunks:      bind("chunk layout", "c"),
		Filter:      bind("filter", "/"),
		Namespace:   bind("namespace", "n"),
		Refresh:     bind("refresh", "r"),
		Verify:      bind("verify rows on screen", "V"),
		Watch:       bind("watch on/off", "w"),
		Accept:      bind("keep filter", "enter"),
		ClearFilter: bind("clear filter", "esc"),
	}
}

// defaultHistory is the history's keys.
func defaultHistory() HistoryKeyMap {
	return HistoryKeyMap{
		Open:      bind("open revision", "enter"),
		Status:    bind("status", "s"),
		Chunks:    bind("chunk layout", "c"),
		Diff:      bind("diff", "d"),
		Live:      bind("diff with live", "L"),
		Mark:      bind("mark for diff", "space", "m"),
		Refresh:   bind("refresh", "r"),
		Verify:    bind("verify all revisions", "V"),
		Rollback:  bind("roll back here", "R"),
		Delete:    bind("delete revision", "X"),
		Uninstall: bind("uninstall", "U"),
		FixStuck:  bind("fix stuck", "F"),
		Prune:     bind("prune old revisions", "P"),
		FixAPIs:   bind("fix removed APIs", "A"),
		Expand:    bind("whole detail on/off", "e"),
	}
}

// defaultRevision is the revision view's keys.
func defaultRevision() RevisionKeyMap {
	return RevisionKeyMap{
		NextTab:   bind("next tab", "tab"),
		PrevTab:   bind("previous tab", "shift+tab"),
		Summary:   bind("summary", "1"),
		Values:    bind("values", "2"),
		Manifest:  bind("manifest", "3"),
		Notes:     bind("notes", "4"),
		Hooks:     bind("hooks", "5"),
		Reveal:    bind("reveal/mask secrets", "v"),
		AllValues: bind("user/all values", "a"),
		Chunks:    bind("chunk layout", "c"),
		Diff:      bind("diff with previous", "d"),
		Copy:      bind("copy the tab's text", "y"),
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
