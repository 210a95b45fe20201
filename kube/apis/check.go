package apis

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// CannotUpgrade is how chunkview says it, in every front end: the words a
// person searching for Helm's failure recognises.
const CannotUpgrade = "Helm can no longer upgrade"

// Revision is what detection reads of a revision: its manifest and its hooks'.
type Revision struct {
	Manifest string
	Hooks    []Hook
}

// Hook is one of a revision's hooks: its name and manifest.
type Hook struct {
	Name, Manifest string
}

// Problem is what is wrong with an object's API version.
type Problem string

const (
	// Unserved: the cluster does not serve the object's apiVersion and kind.
	// Helm can no longer upgrade, roll back or uninstall the release.
	Unserved Problem = "unserved"
	// Removed: served now, and not by the target release, by the lifecycle
	// data (only with a target: ls --kube-version).
	Removed Problem = "removed"
	// Deprecated: served, deprecated by the cluster's release (or the
	// target's), and due for removal in a later one.
	Deprecated Problem = "deprecated"
	// Unknown: discovery could not read the group version (an aggregated
	// API whose backend is down), so whether it is served is not known.
	Unknown Problem = "unknown"
)

// Finding is one object whose API version has a problem.
type Finding struct {
	Object
	Problem Problem `json:"problem"`
	// DeprecatedIn and RemovedIn are the releases the lifecycle data (or
	// the table of removals) gives, zero when neither knows.
	DeprecatedIn Version `json:"deprecatedIn,omitzero"`
	RemovedIn    Version `json:"removedIn,omitzero"`
	// Successor is the served version to use instead, nil when there is none.
	Successor *Successor `json:"successor,omitempty"`
}

// Options narrow what Check reports.
type Options struct {
	// Target is a release to answer for (--kube-version 1.38): what the
	// lifecycle data says it does not serve is reported Removed. Zero: the
	// cluster's own release.
	Target Version
}

// Report is what Check found in one revision.
type Report struct {
	Findings []Finding `json:"findings,omitempty"`
	// Unreadable says which documents could not be read: nothing is known
	// of what they hold.
	Unreadable []string `json:"unreadable,omitempty"`
}

// Check reports each object of rev whose API version the cluster does not
// serve, or that the lifecycle data says is deprecated or, by opts.Target,
// removed. Objects that are fine are not reported.
func Check(rev Revision, s *Served, opts Options) Report {
	var r Report
	add := func(text, hook string) {
		objs, errs := objectsOf(text, hook)
		for _, e := range errs {
			r.Unreadable = append(r.Unreadable, e.Error())
		}
		for _, o := range objs {
			if f, ok := s.check(o, opts); ok {
				r.Findings = append(r.Findings, f)
			}
		}
	}
	add(rev.Manifest, "")
	for _, h := range rev.Hooks {
		add(h.Manifest, h.Name)
	}
	return r
}

// check judges one object.
func (s *Served) check(o Object, opts Options) (Finding, bool) {
	gv, err := schema.ParseGroupVersion(o.APIVersion)
	if err != nil || o.Kind == "" {
		return Finding{}, false // not an object Helm would build; its own error says so
	}
	gvk := gv.WithKind(o.Kind)
	f := Finding{Object: o, RemovedIn: removedIn(gvk)}
	l, known := LifecycleOf(gvk)
	if known {
		f.DeprecatedIn = l.Deprecated
	}
	switch s.serves(gvk) {
	case NotServed:
		f.Problem = Unserved
	case ServingUnknown:
		f.Problem = Unknown
		return f, true
	default:
		if !known {
			return Finding{}, false
		}
		switch {
		case !opts.Target.IsZero() && !opts.Target.Before(l.Removed):
			f.Problem = Removed
		case deprecatedBy(l, s.Version, opts.Target):
			f.Problem = Deprecated
		default:
			return Finding{}, false
		}
	}
	if succ, ok := s.Successor(o.APIVersion, o.Kind); ok {
		f.Successor = &succ
	}
	return f, true
}

// deprecatedBy says whether the lifecycle data deprecates a version by the
// cluster's release or the target's, whichever is later.
func deprecatedBy(l Lifecycle, cluster, target Version) bool {
	ref := cluster
	if ref.Before(target) {
		ref = target
	}
	return !ref.IsZero() && !l.Deprecated.IsZero() && !ref.Before(l.Deprecated)
}

// With returns the findings of the given problems.
func (r Report) With(problems ...Problem) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		for _, p := range problems {
			if f.Problem == p {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// CannotUpgrade says whether some object uses an API the cluster does not
// serve: Helm's next upgrade, rollback or uninstall of the revision fails.
func (r Report) CannotUpgrade() bool { return len(r.With(Unserved)) > 0 }

// String says what f is, as one line: "PodDisruptionBudget/web (policy/v1beta1):
// not served; policy/v1 serves it".
func (f Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s", f.Ref(), f.APIVersion)
	if f.Hook != "" {
		fmt.Fprintf(&b, ", hook %s", f.Hook)
	}
	b.WriteString("): ")
	switch f.Problem {
	case Unserved:
		b.WriteString("not served")
		if !f.RemovedIn.IsZero() {
			fmt.Fprintf(&b, " since %s", f.RemovedIn)
		}
	case Removed:
		fmt.Fprintf(&b, "not served from %s", f.RemovedIn)
	case Deprecated:
		fmt.Fprintf(&b, "deprecated in %s, removed in %s", f.DeprecatedIn, f.RemovedIn)
	case Unknown:
		b.WriteString("not known whether served (discovery could not read its group)")
	}
	switch {
	case f.Successor != nil:
		fmt.Fprintf(&b, "; %s serves it", f.Successor.APIVersion)
	case f.Problem == Unserved:
		b.WriteString("; no served version replaces it")
	}
	return b.String()
}

// Summary says, in a line, why Helm can no longer upgrade a revision, naming
// its objects that use unserved APIs; "" when none does.
func (r Report) Summary() string {
	un := r.With(Unserved)
	if len(un) == 0 {
		return ""
	}
	refs := make([]string, len(un))
	for i, f := range un {
		refs[i] = f.Ref() + " (" + f.APIVersion + ")"
	}
	return fmt.Sprintf("%s: the cluster no longer serves %s", CannotUpgrade, strings.Join(refs, ", "))
}
