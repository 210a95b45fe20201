package apis

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Change is one object written onto its successor's version.
type Change struct {
	Object
	To Successor `json:"to"`
}

// FixedHook is one hook of a fixed revision, in the order of the revision's
// hooks.
type FixedHook struct {
	Name, Manifest string
	// Dropped: every object of the hook was dropped, so the hook goes.
	Dropped bool
}

// Fix is a revision's manifest and hooks written again with each unserved
// API replaced by its served successor.
type Fix struct {
	Manifest string
	Hooks    []FixedHook
	// Changes are the objects moved to another version; Dropped the ones
	// removed (only with dropUnserved); Unknown the ones left as they are
	// because discovery could not read their group.
	Changes []Change
	Dropped []Object
	Unknown []Object
}

// Changed says whether the fix writes anything.
func (f Fix) Changed() bool { return len(f.Changes)+len(f.Dropped) > 0 }

// ErrNoSuccessor is returned (wrapped in a *NoSuccessorError) when an
// unserved object has no served successor and dropping was not asked for.
var ErrNoSuccessor = errors.New("no served version replaces it")

// NoSuccessorError names the objects PlanFix would have to drop.
type NoSuccessorError struct {
	Objects []Object
}

func (e *NoSuccessorError) Error() string {
	refs := make([]string, len(e.Objects))
	for i, o := range e.Objects {
		refs[i] = o.Ref() + " (" + o.APIVersion + ")"
	}
	return fmt.Sprintf("%s: %s; --drop-unserved removes them from the manifest", strings.Join(refs, ", "), ErrNoSuccessor)
}

// Unwrap makes errors.Is(err, ErrNoSuccessor) hold.
func (e *NoSuccessorError) Unwrap() error { return ErrNoSuccessor }

// PlanFix writes rev again for the cluster s describes: each object whose
// apiVersion and kind the cluster does not serve moves to its successor, its
// apiVersion replaced in place, so that every other byte stays. An object with no successor is dropped, its
// document and all, only with dropUnserved; otherwise PlanFix fails with a
// *NoSuccessorError that names them. A document that cannot be read fails it
// too: Helm cannot build it, and a fix that left it would not be one.
func PlanFix(rev Revision, s *Served, dropUnserved bool) (Fix, error) {
	var fix Fix
	var blocked []Object
	write := func(text, hook string) (string, bool, error) {
		objs, errs := objectsOf(text, hook)
		if len(errs) > 0 {
			return "", false, errors.Join(errs...)
		}
		var edits []edit
		kept := 0
		for _, o := range objs {
			switch s.Serves(o.APIVersion, o.Kind) {
			case IsServed:
				kept++
				continue
			case ServingUnknown:
				fix.Unknown = append(fix.Unknown, o)
				kept++
				continue
			}
			if succ, ok := s.Successor(o.APIVersion, o.Kind); ok {
				e, err := moveEdit(o, succ)
				if err != nil {
					return "", false, err
				}
				edits = append(edits, e)
				fix.Changes = append(fix.Changes, Change{Object: o, To: succ})
				kept++
				continue
			}
			if !dropUnserved {
				blocked = append(blocked, o)
				kept++
				continue
			}
			if o.listItem {
				return "", false, fmt.Errorf("%s is an item of a List: drop it from the manifest by hand", o.Ref())
			}
			edits = append(edits, edit{at: o.doc})
			fix.Dropped = append(fix.Dropped, o)
		}
		out, err := rewrite(text, edits)
		return out, kept == 0 && len(objs) > 0, err
	}
	var err error
	if fix.Manifest, _, err = write(rev.Manifest, ""); err != nil {
		return Fix{}, err
	}
	for _, h := range rev.Hooks {
		m, dropped, err := write(h.Manifest, h.Name)
		if err != nil {
			return Fix{}, err
		}
		fix.Hooks = append(fix.Hooks, FixedHook{Name: h.Name, Manifest: m, Dropped: dropped})
	}
	if len(blocked) > 0 {
		return Fix{}, &NoSuccessorError{Objects: blocked}
	}
	return fix, nil
}

// moveEdit is the edit that puts o on succ's version: its apiVersion, in
// place. Successors keep the kind (replacement only picks one of the same).
func moveEdit(o Object, succ Successor) (edit, error) {
	if !o.apiVersion.valid() {
		return edit{}, fmt.Errorf("%s: its apiVersion is not written as a plain or quoted string (a tag, an alias, an escape), so it cannot be replaced in place: edit it by hand", o.Ref())
	}
	return edit{at: o.apiVersion, with: succ.APIVersion}, nil
}

// edit replaces the bytes of a span of a text.
type edit struct {
	at   span
	with string
}

// rewrite applies edits to text: each replaces its span, every other byte
// stays. Spans must not overlap.
func rewrite(text string, edits []edit) (string, error) {
	if len(edits) == 0 {
		return text, nil
	}
	es := append([]edit(nil), edits...)
	sort.Slice(es, func(i, j int) bool { return es[i].at.start < es[j].at.start })
	var b strings.Builder
	b.Grow(len(text))
	pos := 0
	for _, e := range es {
		if e.at.start < pos || e.at.end > len(text) || e.at.start > e.at.end {
			return "", fmt.Errorf("rewrite: edits overlap or leave the text (%d-%d after %d)", e.at.start, e.at.end, pos)
		}
		b.WriteString(text[pos:e.at.start])
		b.WriteString(e.with)
		pos = e.at.end
	}
	b.WriteString(text[pos:])
	return b.String(), nil
}
