package revdiff

import (
	"encoding/base64"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Comparing a manifest object with its live object.
//
// Only what the manifest sets is compared, with the live value at the same
// place: fields the API server defaulted, status, and the metadata the server
// and controllers own never count. A few normalisations keep equal values
// equal however they are written: numbers of any type, resource quantities
// ("1000m" is "1"), a Secret's stringData against its base64 data, and lists
// the API merges by key (containers, env, ports, volumes, ...) compared item
// by item whatever their order.

// PathSeg is one step of a field path: a field name, a list item picked by its
// key fields (Key), or a list item by position (Index >= 0).
type PathSeg struct {
	Field string
	// Key holds the key fields of a keyed list item, e.g. {"name": "web"}.
	Key   map[string]any
	Index int
}

// FieldPath is where a field sits in an object.
type FieldPath []PathSeg

// String renders the path as kubectl's documentation writes fields:
// spec.template.spec.containers[name=web].image, args[2].
func (p FieldPath) String() string {
	var b strings.Builder
	for _, s := range p {
		switch {
		case s.Key != nil:
			keys := slices.Sorted(maps.Keys(s.Key))
			parts := make([]string, len(keys))
			for i, k := range keys {
				parts[i] = k + "=" + scalarText(s.Key[k])
			}
			b.WriteString("[" + strings.Join(parts, ",") + "]")
		case s.Field == "":
			fmt.Fprintf(&b, "[%d]", s.Index)
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Field)
		}
	}
	return b.String()
}

func (p FieldPath) with(s PathSeg) FieldPath {
	return append(slices.Clip(p), s)
}

func field(name string) PathSeg { return PathSeg{Field: name, Index: -1} }

// FieldDiff is one field whose live value is not what the manifest sets.
// Absent is reported through ManifestSet and LiveSet.
type FieldDiff struct {
	Path        FieldPath
	Manifest    any
	Live        any
	ManifestSet bool
	LiveSet     bool
}

// ignoredMetadata are fields of metadata the API server or controllers own.
var ignoredMetadata = map[string]bool{
	"managedFields": true, "resourceVersion": true, "uid": true, "generation": true,
	"creationTimestamp": true, "selfLink": true, "deletionTimestamp": true,
	"deletionGracePeriodSeconds": true,
}

// ignoredAnnotations are written by the server, controllers or kubectl.
var ignoredAnnotations = map[string]bool{
	"deployment.kubernetes.io/revision":                true,
	"kubectl.kubernetes.io/last-applied-configuration": true,
	"meta.helm.sh/release-name":                        true,
	"meta.helm.sh/release-namespace":                   true,
}

// CompareObject compares a manifest object with the live object of the same
// kind and name, and returns the fields that differ, in path order. Both are
// decoded JSON (maps, slices, strings, numbers, booleans). It is pure.
func CompareObject(manifest, live map[string]any) []FieldDiff {
	kind, _ := manifest["kind"].(string)
	c := &comparer{kind: kind}
	want := make(map[string]any, len(manifest))
	for k, v := range manifest {
		switch k {
		case "apiVersion", "kind", "status":
			continue
		}
		want[k] = v
	}
	if kind == "Secret" {
		c.secretData(manifest, live)
		delete(want, "data")
		delete(want, "stringData")
	}
	c.compare(nil, want, live, true)
	return c.out
}

type comparer struct {
	kind string
	out  []FieldDiff
}

func (c *comparer) add(p FieldPath, want, got any, wantSet, gotSet bool) {
	c.out = append(c.out, FieldDiff{Path: p, Manifest: want, Live: got, ManifestSet: wantSet, LiveSet: gotSet})
}

// unset reports whether a manifest value sets nothing: null, "" and {} leave a
// field to its default, as the API's omitempty fields read them.
func unset(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case string:
		return t == ""
	case map[string]any:
		return len(t) == 0
	}
	return false
}

// zero reports whether v is a zero value the API drops from omitempty fields:
// false, 0 or an empty list.
func zero(v any) bool {
	switch t := v.(type) {
	case bool:
		return !t
	case []any:
		return len(t) == 0
	}
	if f, ok := number(v); ok {
		return f == 0
	}
	return false
}

func (c *comparer) compare(p FieldPath, want, got any, gotSet bool) {
	if unset(want) {
		return
	}
	if !gotSet || got == nil {
		if zero(want) {
			return
		}
		c.add(p, want, nil, true, false)
		return
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			c.add(p, want, got, true, true)
			return
		}
		c.compareMap(p, w, g)
	case []any:
		g, ok := got.([]any)
		if !ok {
			c.add(p, want, got, true, true)
			return
		}
		c.compareList(p, w, g)
	default:
		if !c.equalScalar(p, want, got) {
			c.add(p, want, got, true, true)
		}
	}
}

func (c *comparer) compareMap(p FieldPath, want, got map[string]any) {
	atomic := c.atomicMap(p)
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if c.ignored(p, k) {
			continue
		}
		gv, ok := got[k]
		if atomic {
			// Every key counts: "" is a value here, not a default.
			switch {
			case !ok:
				c.add(p.with(field(k)), want[k], nil, true, false)
			case !c.equalScalar(p.with(field(k)), want[k], gv):
				c.add(p.with(field(k)), want[k], gv, true, true)
			}
			continue
		}
		c.compare(p.with(field(k)), want[k], gv, ok)
	}
	if atomic {
		for _, k := range slices.Sorted(maps.Keys(got)) {
			if _, ok := want[k]; !ok {
				c.add(p.with(field(k)), nil, got[k], false, true)
			}
		}
	}
}

// atomicMap reports whether every key of the map at p counts, the live
// object's extra keys included: a ConfigMap's data is what the manifest says,
// no more.
func (c *comparer) atomicMap(p FieldPath) bool {
	return c.kind == "ConfigMap" && len(p) == 1 && (p[0].Field == "data" || p[0].Field == "binaryData")
}

// ignored reports whether field k of the map at p is owned by the server or a
// controller.
func (c *comparer) ignored(p FieldPath, k string) bool {
	switch {
	case len(p) == 1 && p[0].Field == "metadata":
		return ignoredMetadata[k]
	case len(p) == 2 && p[0].Field == "metadata" && p[1].Field == "annotations":
		return ignoredAnnotations[k]
	}
	return false
}

// listKeys names the fields that key the items of the lists the API merges by
// key, by the list's field name. Lists not named here are keyed by "name" when
// every item has a distinct one, else compared by position.
var listKeys = map[string][]string{
	"containers": {"name"}, "initContainers": {"name"}, "ephemeralContainers": {"name"},
	"env": {"name"}, "volumes": {"name"}, "imagePullSecrets": {"name"},
	"volumeMounts": {"mountPath"}, "volumeDevices": {"devicePath"},
	"ports": {"containerPort", "port"}, "hostAliases": {"ip"},
}

// keyOf returns the key of a list item under keys: the first of keys the item
// has. ok is false when it has none.
func keyOf(item any, keys []string) (map[string]any, bool) {
	m, ok := item.(map[string]any)
	if !ok {
		return nil, false
	}
	for _, k := range keys {
		if v, ok := m[k]; ok && v != nil {
			if f, isNum := number(v); isNum {
				v = f // 80 and 80.0 are one key
			}
			return map[string]any{k: v}, true
		}
	}
	return nil, false
}

func keyText(k map[string]any) string {
	return FieldPath{{Key: k}}.String()
}

// keysFor picks how to key the items of the list at p, or nil to compare them
// by position.
func keysFor(p FieldPath, want []any) []string {
	keys := []string{"name"}
	if len(p) > 0 {
		if k, ok := listKeys[p[len(p)-1].Field]; ok {
			keys = k
		}
	}
	seen := map[string]bool{}
	for _, it := range want {
		k, ok := keyOf(it, keys)
		if !ok || seen[keyText(k)] {
			return nil
		}
		seen[keyText(k)] = true
	}
	return keys
}

func (c *comparer) compareList(p FieldPath, want, got []any) {
	keys := keysFor(p, want)
	if keys == nil || len(want) == 0 {
		if len(want) != len(got) {
			c.add(p, want, got, true, true)
			return
		}
		for i := range want {
			c.compare(p.with(PathSeg{Index: i}), want[i], got[i], true)
		}
		return
	}
	byKey := map[string]any{}
	for _, g := range got {
		if k, ok := keyOf(g, keys); ok {
			byKey[keyText(k)] = g
		}
	}
	wanted := map[string]bool{}
	for _, w := range want {
		k, _ := keyOf(w, keys)
		kt := keyText(k)
		wanted[kt] = true
		g, ok := byKey[kt]
		seg := PathSeg{Key: k, Index: -1}
		if !ok {
			c.add(p.with(seg), w, nil, true, false)
			continue
		}
		c.compare(p.with(seg), w, g, true)
	}
	for _, g := range got {
		if k, ok := keyOf(g, keys); !ok || !wanted[keyText(k)] {
			c.add(p.with(PathSeg{Key: k, Index: -1}), nil, g, false, true)
		}
	}
}

// quantityFields are fields (or parents of fields) that hold resource
// quantities.
var quantityFields = map[string]bool{
	"limits": true, "requests": true, "hard": true, "overhead": true, "capacity": true,
	"allocatable": true, "sizeLimit": true, "storage": true, "default": true,
	"defaultRequest": true, "max": true, "min": true, "maxLimitRequestRatio": true,
}

func (c *comparer) quantityPath(p FieldPath) bool {
	if c.kind == "ConfigMap" || c.kind == "Secret" {
		return false
	}
	for _, s := range p {
		if quantityFields[s.Field] {
			return true
		}
	}
	return false
}

// equalScalar compares two leaves: numbers by value, a number with the string
// that spells it, quantities by amount.
func (c *comparer) equalScalar(p FieldPath, want, got any) bool {
	if _, isMap := got.(map[string]any); isMap {
		return false
	}
	if _, isList := got.([]any); isList {
		return false
	}
	wf, wn := number(want)
	gf, gn := number(got)
	switch {
	case wn && gn && wf == gf:
		return true
	case want == got:
		return true
	}
	ws, gs := scalarText(want), scalarText(got)
	if (wn || gn) && ws == gs {
		return true
	}
	if c.quantityPath(p) {
		wq, err1 := resource.ParseQuantity(ws)
		gq, err2 := resource.ParseQuantity(gs)
		if err1 == nil && err2 == nil {
			return wq.Cmp(gq) == 0
		}
	}
	return false
}

// number reads any numeric type as a float64.
func number(v any) (float64, bool) {
	switch t := v.(type) {
	case float64:
		return t, true
	case float32:
		return float64(t), true
	case int:
		return float64(t), true
	case int64:
		return float64(t), true
	case int32:
		return float64(t), true
	case uint64:
		return float64(t), true
	case interface{ Float64() (float64, error) }: // json.Number
		f, err := t.Float64()
		return f, err == nil
	}
	return 0, false
}

// scalarText renders a leaf as YAML would show it.
func scalarText(v any) string {
	if f, ok := number(v); ok {
		if f == math.Trunc(f) && math.Abs(f) < 1e15 {
			return strconv.FormatInt(int64(f), 10)
		}
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return t
	}
	return fmt.Sprint(v)
}

// secretData compares a Secret's data as text: the manifest's data (base64) and
// stringData (plain, winning over data as the API server merges them) against
// the live data, decoded. Every key counts.
func (c *comparer) secretData(manifest, live map[string]any) {
	want := map[string]any{}
	if d, ok := manifest["data"].(map[string]any); ok {
		for k, v := range d {
			want[k] = decodeB64(v)
		}
	}
	if d, ok := manifest["stringData"].(map[string]any); ok {
		for k, v := range d {
			want[k] = scalarText(v)
		}
	}
	got := map[string]any{}
	if d, ok := live["data"].(map[string]any); ok {
		for k, v := range d {
			got[k] = decodeB64(v)
		}
	}
	p := FieldPath{field("data")}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		g, ok := got[k]
		switch {
		case !ok:
			c.add(p.with(field(k)), want[k], nil, true, false)
		case g != want[k]:
			c.add(p.with(field(k)), want[k], g, true, true)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			c.add(p.with(field(k)), nil, got[k], false, true)
		}
	}
}

// decodeB64 returns a Secret data value decoded, or as it is when it is not
// base64.
func decodeB64(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		return s
	}
	return string(b)
}
