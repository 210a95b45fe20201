package revdiff

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// helmManagers are the field managers Helm writes as: Helm's own writes are
// what the manifest says, not a change to report.
var helmManagers = map[string]bool{"helm": true}

// helmMark is a field only Helm writes: the manager that owns it is Helm, under
// whatever name its binary has (helm, an operator's manager, a test).
var helmMark = FieldPath{field("metadata"), field("annotations"), field("meta.helm.sh/release-name")}

// ChangedBy returns the field manager of a live object that last wrote the
// field at p, other than Helm, as "manager (Operation)" or, for a subresource,
// "manager (Operation /scale)". It reads the object's metadata.managedFields
// (server-side apply's record of who set what): of the managers that own the
// field, Helm aside (see helmMark), the one whose write is the most recent. It
// returns nil when they do not say.
func ChangedBy(live map[string]any, p FieldPath) []string {
	md, _ := live["metadata"].(map[string]any)
	entries, _ := md["managedFields"].([]any)
	type owner struct{ who, at string }
	var owners []owner
	for _, e := range entries {
		m, _ := e.(map[string]any)
		manager, _ := m["manager"].(string)
		if manager == "" || helmManagers[manager] {
			continue
		}
		fields, _ := m["fieldsV1"].(map[string]any)
		if fields == nil || !owns(fields, p) || owns(fields, helmMark) {
			continue
		}
		who := manager
		op, _ := m["operation"].(string)
		if sub, _ := m["subresource"].(string); sub != "" {
			op += " /" + sub
		}
		if op != "" {
			who += " (" + op + ")"
		}
		at, _ := m["time"].(string)
		owners = append(owners, owner{who, at})
	}
	slices.SortStableFunc(owners, func(a, b owner) int { return strings.Compare(b.at, a.at) })
	if len(owners) == 0 {
		return nil
	}
	return []string{owners[0].who}
}

// owns reports whether a fieldsV1 set covers path p: it holds the path, or a
// field on the way that it owns whole (an atomic list or map).
func owns(set map[string]any, p FieldPath) bool {
	if len(p) == 0 {
		return true
	}
	s := p[0]
	var next map[string]any
	switch {
	case s.Key != nil:
		for k, v := range set {
			raw, ok := strings.CutPrefix(k, "k:")
			if !ok {
				continue
			}
			var key map[string]any
			if json.Unmarshal([]byte(raw), &key) != nil {
				continue
			}
			if keyMatches(key, s.Key) {
				next, _ = v.(map[string]any)
				break
			}
		}
	case s.Field == "":
		next, _ = set[fmt.Sprintf("i:%d", s.Index)].(map[string]any)
	default:
		var ok bool
		if next, ok = set["f:"+s.Field].(map[string]any); ok && len(next) == 0 {
			return true // a leaf or an atomic value: owned whole
		}
	}
	if next == nil {
		return false
	}
	return owns(next, p[1:])
}

// keyMatches reports whether a managedFields item key has the fields of ours.
func keyMatches(theirs, ours map[string]any) bool {
	for k, v := range ours {
		if scalarText(theirs[k]) != scalarText(v) {
			return false
		}
	}
	return true
}
