package revision

// revisionTab is one tab of the revision screen.
type revisionTab int

const (
	tabSummary revisionTab = iota
	tabValues
	tabManifest
	tabNotes
	tabHooks
	tabCount
)

var tabNames = [tabCount]string{"Summary", "Values", "Manifest", "Notes", "Hooks"}

// renderKey names one rendering of a tab: the text differs with the reveal and
// all-values switches.
type renderKey struct {
	tab    revisionTab
	reveal bool
	all    bool
	// readOnly leaves the keys that change the cluster out of the hints.
	readOnly bool
	// width is the screen's, for the summary, whose long fields wrap.
	width int
}
