// Package revdiff compares two revisions of a Helm release: the rendered resources,
// the user-supplied and computed values, the chart, the notes and the hooks. Secrets
// are masked unless the caller asks to reveal them: a masked value shows as a token
// that changes when the value changes and gives nothing else away.
//
// Everything here is a pure function of the releases it is given; the TUI and the
// CLI share it.
package revdiff

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	udiff "github.com/aymanbagabas/go-udiff"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/release"
)

// DefaultContext is the number of unchanged lines shown around each change.
const DefaultContext = 3

// Options controls Diff.
type Options struct {
	// Reveal shows secrets as they are instead of masking them.
	Reveal bool
	// Context is the number of unchanged lines shown around each change in a
	// unified diff. Zero means DefaultContext; a negative value shows none.
	Context int
	// SummarizeOver, when above zero, shows every value of a resource, a hook
	// or the values longer than that many bytes as its size and hash rather
	// than its lines (see PlanSummarizeOver). A change to it still shows, as a
	// changed summary.
	SummarizeOver int
}

// ChangeKind tells how a resource differs between two revisions. It marshals as
// a lower-case word: "unchanged", "added", "removed" or "changed".
type ChangeKind int

// The kinds of change, in the order a Result lists them (Unchanged last).
const (
	Unchanged ChangeKind = iota
	Added
	Removed
	Changed
)

var changeNames = [...]string{Unchanged: "unchanged", Added: "added", Removed: "removed", Changed: "changed"}

// String returns the lower-case name of the change.
func (c ChangeKind) String() string {
	if c >= 0 && int(c) < len(changeNames) {
		return changeNames[c]
	}
	return fmt.Sprintf("ChangeKind(%d)", int(c))
}

// MarshalText encodes the change as its name, for JSON.
func (c ChangeKind) MarshalText() ([]byte, error) {
	if c < 0 || int(c) >= len(changeNames) {
		return nil, fmt.Errorf("unknown change kind %d", int(c))
	}
	return []byte(c.String()), nil
}

// UnmarshalText decodes a change from its name.
func (c *ChangeKind) UnmarshalText(b []byte) error {
	i := slices.Index(changeNames[:], string(b))
	if i < 0 {
		return fmt.Errorf("unknown change kind %q", b)
	}
	*c = ChangeKind(i)
	return nil
}

// changeMarks prefix changed resources in the summary of Unified.
var changeMarks = map[ChangeKind]string{Added: "+", Removed: "-", Changed: "~"}

// rank orders changes as a Result lists them.
func (c ChangeKind) rank() int {
	if c == Unchanged {
		return int(Changed) + 1
	}
	return int(c)
}

// ResourceChange is how one resource or hook differs between the two revisions.
type ResourceChange struct {
	// Key is "Kind/namespace/name" for a resource (see SplitManifest) and
	// "Kind/name", or the template path when the hook has no name, for a hook.
	Key       string     `json:"key"`
	Kind      string     `json:"kind"`
	Namespace string     `json:"namespace"`
	Name      string     `json:"name"`
	Change    ChangeKind `json:"change"`
	// Diff is a unified diff of the resource's manifest, "" when unchanged.
	Diff string `json:"diff"`
}

// Section is one part of a release compared as a whole, such as its values.
type Section struct {
	Name string `json:"name"`
	// Diff is a unified diff of the section's text, "" when unchanged.
	Diff string `json:"diff"`
}

// Result is the difference between two revisions of a release.
type Result struct {
	Release string `json:"release"`
	// Driver names the store that holds the release (chunked, secret or
	// configmap), when the caller knows it; the comparison does not use it.
	Driver string `json:"driver,omitempty"`
	From   int    `json:"from"`
	To     int    `json:"to"`
	// Revealed tells whether secrets are shown as they are.
	Revealed bool `json:"revealed"`
	// Resources lists added, removed and changed resources, in that order and
	// each sorted by key, then the unchanged ones.
	Resources      []ResourceChange `json:"resources"`
	Values         Section          `json:"values"`
	ComputedValues Section          `json:"computedValues"`
	Chart          Section          `json:"chart"`
	Notes          Section          `json:"notes"`
	// Hooks are ordered like Resources.
	Hooks []ResourceChange `json:"hooks"`
	// Summarized counts the values shown as their size and hash, those longer
	// than SummarizedOver bytes (Options.SummarizeOver).
	Summarized     int `json:"summarized,omitempty"`
	SummarizedOver int `json:"summarizedOver,omitempty"`
}

// Changed reports whether the two revisions differ in anything compared.
func (r *Result) Changed() bool {
	for _, s := range r.sections() {
		if s.Diff != "" {
			return true
		}
	}
	for _, c := range slices.Concat(r.Resources, r.Hooks) {
		if c.Change != Unchanged {
			return true
		}
	}
	return false
}

// Summary counts the added, removed and changed resources; hooks are not counted.
func (r *Result) Summary() (added, removed, changed int) {
	a, rm, c, _ := count(r.Resources)
	return a, rm, c
}

func count(cs []ResourceChange) (added, removed, changed, unchanged int) {
	for _, c := range cs {
		switch c.Change {
		case Added:
			added++
		case Removed:
			removed++
		case Changed:
			changed++
		default:
			unchanged++
		}
	}
	return
}

func (r *Result) sections() []Section {
	return []Section{r.Chart, r.Values, r.ComputedValues, r.Notes}
}

// Unified renders the whole result as text for the CLI: a summary of what changed,
// then the unified diffs of the chart, values, computed values, resources, hooks
// and notes.
func (r *Result) Unified() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Release %q: revision %d -> %d", r.Release, r.From, r.To)
	if r.Revealed {
		b.WriteString(" (secrets revealed)\n")
	} else {
		b.WriteString(" (secrets masked)\n")
	}
	if !r.Changed() {
		b.WriteString("No differences.\n")
	}
	if r.Summarized > 0 {
		fmt.Fprintf(&b, "%d %s longer than %d bytes shown as size and hash; `chunkview diff` shows them whole\n",
			r.Summarized, map[bool]string{true: "value", false: "values"}[r.Summarized == 1], r.SummarizedOver)
	}
	list := func(title string, cs []ResourceChange) {
		a, rm, c, u := count(cs)
		fmt.Fprintf(&b, "%s: %d added, %d removed, %d changed, %d unchanged\n", title, a, rm, c, u)
		for _, ch := range cs {
			if mark, ok := changeMarks[ch.Change]; ok {
				fmt.Fprintf(&b, "  %s %s\n", mark, ch.Key)
			}
		}
	}
	list("Resources", r.Resources)
	list("Hooks", r.Hooks)
	for _, s := range r.sections() {
		state := "unchanged"
		if s.Diff != "" {
			state = "changed"
		}
		title := s.Name
		if title != "" {
			title = strings.ToUpper(title[:1]) + title[1:]
		}
		fmt.Fprintf(&b, "%s: %s\n", title, state)
	}
	var diffs []string
	for _, s := range r.sections()[:3] {
		diffs = append(diffs, s.Diff)
	}
	for _, c := range slices.Concat(r.Resources, r.Hooks) {
		diffs = append(diffs, c.Diff)
	}
	diffs = append(diffs, r.Notes.Diff)
	for _, d := range diffs {
		if d != "" {
			b.WriteString("\n")
			b.WriteString(d)
		}
	}
	return b.String()
}

// ErrNilRelease is returned by Diff when either release is nil.
var ErrNilRelease = errors.New("diff: a release to compare is missing (nil)")

// Diff compares revision from with revision to. Secrets are masked unless
// opts.Reveal is set; a secret that changed shows as a changed token.
func Diff(from, to *release.Release, opts Options) (*Result, error) {
	if from == nil || to == nil {
		return nil, ErrNilRelease
	}
	ctx := opts.Context
	switch {
	case ctx == 0:
		ctx = DefaultContext
	case ctx < 0:
		ctx = 0
	}
	// First pass over both revisions masks secrets where they sit and collects
	// them; the second scrubs them from everything else, in both revisions.
	// The two revisions are parsed and masked side by side, each by a masker of
	// its own under the same key, whose secrets then scrub both.
	m := newMasker(opts.Reveal)
	mb := &masker{reveal: m.reveal, key: m.key, secrets: map[string]struct{}{}}
	var (
		a, b       *side
		errA, errB error
		wg         sync.WaitGroup
	)
	wg.Go(func() { a, errA = m.prepare(from) })
	b, errB = mb.prepare(to)
	wg.Wait()
	if errA != nil {
		return nil, errA
	}
	if errB != nil {
		return nil, errB
	}
	maps.Copy(m.secrets, mb.secrets)
	r := m.replacer()
	var err error
	name := to.Name
	if name == "" {
		name = from.Name
	}
	res := &Result{Release: name, From: from.Version, To: to.Version, Revealed: opts.Reveal}
	d := &differ{from: from.Version, to: to.Version, ctx: ctx, r: r, over: opts.SummarizeOver}
	if res.Resources, err = d.items(a.resources, b.resources); err != nil {
		return nil, err
	}
	if res.Hooks, err = d.items(a.hooks, b.hooks); err != nil {
		return nil, err
	}
	var vals [4]string // user and computed values of from, then of to
	for i, v := range []any{a.values, a.computed, b.values, b.computed} {
		if vals[i], err = d.values(v); err != nil {
			rev := []int{from.Version, to.Version}[i/2]
			return nil, fmt.Errorf("diff: values of revision %d: %w", rev, err)
		}
	}
	for _, s := range []struct {
		out      *Section
		name     string
		old, new string
	}{
		{&res.Values, "values", vals[0], vals[2]},
		{&res.ComputedValues, "computed values", vals[1], vals[3]},
		{&res.Chart, "chart", a.chart, b.chart},
		{&res.Notes, "notes", a.notes, b.notes},
	} {
		*s.out = Section{Name: s.name}
		old, new := scrub(r, s.old), scrub(r, s.new)
		if s.out == &res.Values || s.out == &res.ComputedValues {
			old, new = d.summarize(old, new)
		}
		if s.out.Diff, err = d.diff(s.name, old, new); err != nil {
			return nil, err
		}
	}
	if d.summarized > 0 {
		res.Summarized, res.SummarizedOver = d.summarized, d.over
	}
	return res, nil
}

// side is one revision after the first masking pass.
type side struct {
	resources, hooks []item
	values, computed any
	chart, notes     string
}

// item is a resource or hook to compare by key.
type item struct {
	key, kind, namespace, name string
	doc                        *maskedDoc
}

func (m *masker) prepare(rel *release.Release) (*side, error) {
	s := &side{chart: chartText(rel.Chart)}
	if rel.Info != nil {
		s.notes = withNewline(rel.Info.Notes)
	}
	// Each document is parsed once: masking's parse also tells its kind and
	// name, in all but unusual documents.
	for _, res := range splitMasked(rel.Manifest, rel.Namespace, m.maskDoc) {
		s.resources = append(s.resources, item{
			key: res.Key, kind: res.Kind, namespace: res.Namespace, name: res.Name,
			doc: res.masked,
		})
	}
	seen := map[string]int{}
	for _, h := range rel.Hooks {
		if h == nil {
			continue
		}
		key := h.Path
		if h.Name != "" || key == "" {
			key = h.Kind + "/" + h.Name
		}
		s.hooks = append(s.hooks, item{
			key: uniqueKey(seen, key), kind: h.Kind, name: h.Name,
			doc: m.maskDoc(hookText(h)),
		})
	}
	s.values = m.maskMap(rel.Config, false, false)
	computed, err := computedValues(rel)
	if err != nil {
		return nil, fmt.Errorf("diff: computed values of revision %d: %w", rel.Version, err)
	}
	s.computed = m.maskMap(computed, false, false)
	return s, nil
}

// computedValues coalesces the chart's values with the user-supplied ones, as
// "helm get values --all" does.
func computedValues(rel *release.Release) (map[string]any, error) {
	if rel.Chart == nil {
		return rel.Config, nil
	}
	ch := rel.Chart
	if ch.Metadata == nil {
		// Helm reads the chart's name while coalescing.
		c := *ch
		c.Metadata = &chart.Metadata{}
		ch = &c
	}
	return chartutil.CoalesceValues(ch, rel.Config)
}

func chartText(c *chart.Chart) string {
	if c == nil || c.Metadata == nil {
		return ""
	}
	md := c.Metadata
	var b strings.Builder
	fmt.Fprintf(&b, "name: %s\nversion: %s\n", md.Name, md.Version)
	if md.AppVersion != "" {
		fmt.Fprintf(&b, "appVersion: %s\n", md.AppVersion)
	}
	if len(md.Dependencies) > 0 {
		b.WriteString("dependencies:\n")
		for _, d := range md.Dependencies {
			if d != nil {
				fmt.Fprintf(&b, "- %s %s\n", d.Name, d.Version)
			}
		}
	}
	return b.String()
}

// hookText is what is compared of a hook: when it runs, then its manifest. The
// time of its last run changes on every revision and is left out.
func hookText(h *release.Hook) string {
	var b strings.Builder
	events := make([]string, len(h.Events))
	for i, e := range h.Events {
		events[i] = string(e)
	}
	fmt.Fprintf(&b, "# hook events: %s\n# hook weight: %d\n", strings.Join(events, ", "), h.Weight)
	if len(h.DeletePolicies) > 0 {
		policies := make([]string, len(h.DeletePolicies))
		for i, p := range h.DeletePolicies {
			policies[i] = string(p)
		}
		fmt.Fprintf(&b, "# hook delete policies: %s\n", strings.Join(policies, ", "))
	}
	b.WriteString(withNewline(strings.ReplaceAll(h.Manifest, "\r\n", "\n")))
	return b.String()
}

func withNewline(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}

// differ renders the diffs of one comparison after the first masking pass.
type differ struct {
	from, to int
	ctx      int
	r        *strings.Replacer
	// over is Options.SummarizeOver; summarized counts the values it
	// summarised.
	over, summarized int
}

// summarize is summarizePair over d's bound, counted.
func (d *differ) summarize(old, new string) (string, string) {
	old, new, n := summarizePair(old, new, d.over)
	d.summarized += n
	return old, new
}

func (d *differ) values(v any) (string, error) {
	vals, _ := v.(map[string]any)
	scrubTree(d.r, vals)
	return valuesYAML(vals)
}

func (d *differ) diff(label, old, new string) (string, error) {
	if old == new {
		return "", nil
	}
	out, err := udiff.ToUnified(
		fmt.Sprintf("%s (revision %d)", label, d.from),
		fmt.Sprintf("%s (revision %d)", label, d.to),
		old, udiff.Lines(old, new), d.ctx)
	if err != nil {
		return "", fmt.Errorf("diff: %s: %w", label, err)
	}
	return out, nil
}

// items pairs resources (or hooks) by key and diffs each pair.
func (d *differ) items(old, new []item) ([]ResourceChange, error) {
	byKey := map[string]*ResourceChange{}
	texts := map[string][2]*string{}
	var keys []string
	add := func(it item, i int) {
		c, ok := byKey[it.key]
		if !ok {
			c = &ResourceChange{Key: it.key, Kind: it.kind, Namespace: it.namespace, Name: it.name}
			byKey[it.key] = c
			keys = append(keys, it.key)
		}
		t := texts[it.key]
		s := it.doc.text(d.r)
		t[i] = &s
		texts[it.key] = t
	}
	for _, it := range old {
		add(it, 0)
	}
	for _, it := range new {
		add(it, 1)
	}
	out := make([]ResourceChange, 0, len(keys))
	for _, k := range keys {
		c, t := byKey[k], texts[k]
		var o, n string
		switch {
		case t[0] == nil:
			c.Change, n = Added, *t[1]
		case t[1] == nil:
			c.Change, o = Removed, *t[0]
		default:
			o, n = *t[0], *t[1]
			if o != n {
				c.Change = Changed
			}
		}
		o, n = d.summarize(o, n)
		var err error
		if c.Diff, err = d.diff(k, o, n); err != nil {
			return nil, err
		}
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b ResourceChange) int {
		if a.Change != b.Change {
			return a.Change.rank() - b.Change.rank()
		}
		return strings.Compare(a.Key, b.Key)
	})
	return out, nil
}
