package revdiff

import (
	"fmt"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/release"
	"sigs.k8s.io/yaml"
)

// DriftState tells how one object of a release stands against the cluster. It
// marshals as a lower-case word.
type DriftState int

// The states of an object, in the order a Drift lists them (InSync last).
const (
	InSync DriftState = iota
	// Drifted: the live object differs from the manifest in the fields listed.
	Drifted
	// Missing: the manifest has the object, the cluster does not.
	Missing
	// Extra: the cluster has an object labelled and annotated as the release's
	// that the manifest does not hold.
	Extra
	// Unreadable: the object could not be read (forbidden, or its kind is not
	// served); it is not drift, and not known to be in sync either.
	Unreadable
)

var driftNames = [...]string{InSync: "in-sync", Drifted: "changed", Missing: "missing", Extra: "extra", Unreadable: "unreadable"}

// String returns the state's name.
func (s DriftState) String() string {
	if s >= 0 && int(s) < len(driftNames) {
		return driftNames[s]
	}
	return fmt.Sprintf("DriftState(%d)", int(s))
}

// MarshalText encodes the state as its name, for JSON.
func (s DriftState) MarshalText() ([]byte, error) {
	if s < 0 || int(s) >= len(driftNames) {
		return nil, fmt.Errorf("unknown drift state %d", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText decodes a state from its name.
func (s *DriftState) UnmarshalText(b []byte) error {
	i := slices.Index(driftNames[:], string(b))
	if i < 0 {
		return fmt.Errorf("unknown drift state %q", b)
	}
	*s = DriftState(i)
	return nil
}

// rank orders states as a Drift lists them.
func (s DriftState) rank() int {
	if s == InSync {
		return len(driftNames)
	}
	return int(s)
}

// FieldDrift is one field that differs, as shown: values masked unless
// revealed, rendered as YAML ("" with Set false when absent).
type FieldDrift struct {
	Path        string `json:"path"`
	Manifest    string `json:"manifest"`
	ManifestSet bool   `json:"manifestSet"`
	Live        string `json:"live"`
	LiveSet     bool   `json:"liveSet"`
	// ChangedBy names the field managers of the live object that own the field
	// other than Helm, as "manager (Operation)": who changed it, when known.
	ChangedBy []string `json:"changedBy,omitempty"`
}

// ObjectDrift is how one object stands against the cluster.
type ObjectDrift struct {
	// Key is "Kind/namespace/name" or "Kind/name", as Result keys resources.
	Key        string       `json:"key"`
	APIVersion string       `json:"apiVersion"`
	Kind       string       `json:"kind"`
	Namespace  string       `json:"namespace"`
	Name       string       `json:"name"`
	State      DriftState   `json:"state"`
	Fields     []FieldDrift `json:"fields,omitempty"`
	// Reason says why an object is unreadable, and what to check.
	Reason string `json:"reason,omitempty"`
	// Diff shows the object's drift as a unified diff, revision against live,
	// one hunk per field; "" when in sync or unreadable.
	Diff string `json:"diff"`
}

// Drift is how a revision of a release stands against the live cluster.
type Drift struct {
	Release   string `json:"release"`
	Namespace string `json:"namespace"`
	Revision  int    `json:"revision"`
	Revealed  bool   `json:"revealed"`
	// Objects lists changed, missing, extra and unreadable objects, in that
	// order and each sorted by key, then those in sync.
	Objects []ObjectDrift `json:"objects"`
	// Notes say what could not be looked at (extra objects of a kind the user
	// may not list).
	Notes []string `json:"notes,omitempty"`
}

// Count returns how many objects are in state s.
func (d *Drift) Count(s DriftState) int {
	n := 0
	for _, o := range d.Objects {
		if o.State == s {
			n++
		}
	}
	return n
}

// Drifted reports whether any object is changed, missing or extra.
func (d *Drift) Drifted() bool {
	return d.Count(Drifted)+d.Count(Missing)+d.Count(Extra) > 0
}

// Complete reports whether every object could be read.
func (d *Drift) Complete() bool { return d.Count(Unreadable) == 0 && len(d.Notes) == 0 }

// LiveObject is what the cluster holds for one object of a release, as read by
// the caller: the input of CompareLive.
type LiveObject struct {
	// Resource is the manifest document; for an extra object only its key,
	// kind, namespace and name are set.
	Resource Resource
	// APIVersion is the object's.
	APIVersion string
	// Live is the live object as decoded JSON; nil when not found.
	Live map[string]any
	// Extra marks an object of the release the manifest does not hold.
	Extra bool
	// Unreadable, when set, says why the object could not be read.
	Unreadable string
}

// DriftOptions controls CompareLive.
type DriftOptions struct {
	// Reveal shows secrets as they are instead of masking them.
	Reveal bool
}

// CompareLive compares the objects of revision rel with what the cluster holds
// for them and returns the drift. Secrets are masked unless opts.Reveal: Secret
// data and values under sensitive keys (see MaskValues) become tokens, and those
// values are scrubbed from everything else shown. It is pure.
func CompareLive(rel *release.Release, objs []LiveObject, opts DriftOptions) (*Drift, error) {
	if rel == nil {
		return nil, ErrNilRelease
	}
	d := &Drift{Release: rel.Name, Namespace: rel.Namespace, Revision: rel.Version, Revealed: opts.Reveal}
	m := newMasker(opts.Reveal)
	// First pass: every secret of the release and of the live Secrets is
	// remembered, so that a copy of one anywhere is scrubbed too.
	docs := rememberSecrets(m, objs)
	all, err := compareObjects(objs, docs)
	if err != nil {
		return nil, err
	}
	// Second pass: mask the values shown, then scrub them.
	d.Objects = maskDrift(m, all, rel.Version)
	slices.SortStableFunc(d.Objects, func(a, b ObjectDrift) int {
		if a.State != b.State {
			return a.State.rank() - b.State.rank()
		}
		return strings.Compare(a.Key, b.Key)
	})
	return d, nil
}

// rememberSecrets masks each object's manifest and has m remember every secret
// in it and in the live Secrets' data, so that a copy of one anywhere is
// scrubbed too; it returns the masked manifests, by object.
func rememberSecrets(m *masker, objs []LiveObject) []*maskedDoc {
	docs := make([]*maskedDoc, len(objs))
	for i, o := range objs {
		if o.Resource.Manifest != "" {
			docs[i] = m.maskDoc(o.Resource.Manifest)
		}
		if o.Live != nil && o.Resource.Kind == "Secret" {
			if data, ok := o.Live["data"].(map[string]any); ok {
				for _, v := range data {
					m.remember(scalarText(decodeB64(v)))
				}
			}
		}
	}
	return docs
}

// objectCompared is an object's drift before its values are masked: the fields
// that differ, as they are.
type objectCompared struct {
	od    ObjectDrift
	diffs []FieldDiff
	live  map[string]any
	doc   *maskedDoc
}

// compareObjects compares each object's manifest with the object as it is.
func compareObjects(objs []LiveObject, docs []*maskedDoc) ([]objectCompared, error) {
	var all []objectCompared
	for i, o := range objs {
		r := o.Resource
		od := ObjectDrift{Key: r.Key, APIVersion: o.APIVersion, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}
		p := objectCompared{live: o.Live, doc: docs[i]}
		switch {
		case o.Unreadable != "":
			od.State, od.Reason = Unreadable, o.Unreadable
		case o.Extra:
			od.State = Extra
		case o.Live == nil:
			od.State = Missing
		default:
			var want map[string]any
			if err := yaml.Unmarshal([]byte(r.Manifest), &want); err != nil {
				return nil, fmt.Errorf("drift: %s: the manifest does not parse: %w", r.Key, err)
			}
			p.diffs = CompareObject(want, o.Live)
			if len(p.diffs) > 0 {
				od.State = Drifted
			}
		}
		p.od = od
		all = append(all, p)
	}
	return all, nil
}

// maskDrift masks the values of every field that differs (a Secret's data, a
// field whose path names a secret), then scrubs every copy of a secret m
// remembers, and returns each object's drift with its fields and diff.
func maskDrift(m *masker, all []objectCompared, version int) []ObjectDrift {
	type shown struct{ want, got any }
	values := make([][]shown, len(all))
	for i, p := range all {
		secretKind := p.od.Kind == "Secret"
		for _, fd := range p.diffs {
			secret := !m.reveal && (secretKind && len(fd.Path) > 0 && fd.Path[0].Field == "data" || sensitivePath(fd.Path))
			values[i] = append(values[i], shown{m.maskAny(fd.Manifest, secret, false), m.maskAny(fd.Live, secret, false)})
		}
	}
	r := m.replacer()
	var out []ObjectDrift
	for i := range all {
		p := &all[i]
		for j, fd := range p.diffs {
			v := values[i][j]
			scrubTree(r, v.want)
			scrubTree(r, v.got)
			p.od.Fields = append(p.od.Fields, FieldDrift{
				Path: scrub(r, fd.Path.String()), Manifest: scrub(r, valueText(v.want)), ManifestSet: fd.ManifestSet,
				Live: scrub(r, valueText(v.got)), LiveSet: fd.LiveSet, ChangedBy: ChangedBy(p.live, fd.Path),
			})
		}
		p.od.Diff = objectDiff(p.od, version, p.doc, r)
		out = append(out, p.od)
	}
	return out
}

// sensitivePath reports whether a field path holds a secret by the rules of
// MaskValues: a sensitive field name on the way, or the value of an item that
// names a secret ({name: DB_PASSWORD, value: ...}).
func sensitivePath(p FieldPath) bool {
	for i, s := range p {
		inRef := i > 0 && (p[i-1].Key != nil || p[i-1].Field == "" || lastWord(p[i-1].Field) == "ref")
		if s.Field != "" && s.Key == nil && sensitiveKey(s.Field, inRef) {
			return true
		}
		if s.Key != nil && namesSecret(s.Key["name"], s.Key["key"]) && i+1 < len(p) && p[i+1].Field == "value" {
			return true
		}
	}
	return false
}

// valueText renders a value shown in a field diff: a scalar as it is, a map or
// list as YAML.
func valueText(v any) string {
	switch v.(type) {
	case map[string]any, []any:
		b, err := yaml.Marshal(v)
		if err != nil {
			return fmt.Sprint(v)
		}
		return strings.TrimSuffix(string(b), "\n")
	}
	return scalarText(v)
}

// objectDiff renders an object's drift as a unified diff of revision rev
// against live: one hunk per field, headed by its path and who changed it.
func objectDiff(o ObjectDrift, rev int, doc *maskedDoc, r *strings.Replacer) string {
	var b strings.Builder
	head := func() {
		fmt.Fprintf(&b, "--- %s (revision %d)\n+++ %s (live)\n", o.Key, rev, o.Key)
	}
	lines := func(mark, text string) {
		for l := range strings.Lines(strings.TrimSuffix(text, "\n") + "\n") {
			b.WriteString(mark + l)
		}
	}
	switch o.State {
	case Missing:
		head()
		b.WriteString("@@ missing from the cluster @@\n")
		if doc != nil {
			lines("-", doc.text(r))
		}
	case Extra:
		head()
		b.WriteString("@@ labelled as the release's, not in its manifest @@\n")
		lines("+", fmt.Sprintf("apiVersion: %s\nkind: %s\nmetadata:\n  name: %s", o.APIVersion, o.Kind, o.Name))
		if o.Namespace != "" {
			lines("+", "  namespace: "+o.Namespace)
		}
	case Drifted:
		head()
		for _, f := range o.Fields {
			title := f.Path
			if len(f.ChangedBy) > 0 {
				title += " · changed by " + strings.Join(f.ChangedBy, ", ")
			}
			fmt.Fprintf(&b, "@@ %s @@\n", title)
			if f.ManifestSet {
				lines("-", f.Manifest)
			}
			if f.LiveSet {
				lines("+", f.Live)
			} else {
				b.WriteString("+# (not set)\n")
			}
		}
	}
	return b.String()
}

// Text renders the drift for a terminal: a summary line per object that is not
// in sync, then each object's diff.
func (d *Drift) Text() string {
	var b strings.Builder
	state := "secrets masked"
	if d.Revealed {
		state = "secrets revealed"
	}
	fmt.Fprintf(&b, "Release %q (namespace %s): revision %d against the live cluster (%s)\n", d.Release, d.Namespace, d.Revision, state)
	fmt.Fprintf(&b, "Objects: %d changed, %d missing, %d extra, %d unreadable, %d in sync\n",
		d.Count(Drifted), d.Count(Missing), d.Count(Extra), d.Count(Unreadable), d.Count(InSync))
	if !d.Drifted() {
		b.WriteString("No drift")
		if !d.Complete() {
			b.WriteString(" in what could be read")
		}
		b.WriteString(".\n")
	}
	marks := map[DriftState]string{Drifted: "~", Missing: "-", Extra: "+", Unreadable: "?"}
	for _, o := range d.Objects {
		mark, ok := marks[o.State]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "  %s %s (%s)", mark, o.Key, o.State)
		switch {
		case o.State == Unreadable:
			fmt.Fprintf(&b, ": %s", o.Reason)
		case len(o.Fields) > 0:
			paths := make([]string, len(o.Fields))
			for i, f := range o.Fields {
				paths[i] = f.Path
			}
			fmt.Fprintf(&b, ": %s", strings.Join(paths, ", "))
		}
		b.WriteString("\n")
	}
	for _, n := range d.Notes {
		fmt.Fprintf(&b, "Note: %s\n", n)
	}
	for _, o := range d.Objects {
		if o.Diff != "" {
			b.WriteString("\n" + o.Diff)
		}
	}
	return b.String()
}
