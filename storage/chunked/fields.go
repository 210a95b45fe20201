package chunked

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// A record written by a newer Helm (Helm 4 writes apply_method, the chart's and its
// files' mod times, info.rollback_revision) decodes into Helm 3's types without
// error: encoding/json drops the fields it has no place for. Helm 3's actions then
// write the release back without them. The walk below finds such fields, so that
// chunkview can say what a record holds and refuse to rewrite it.

// maxUnknownFields bounds the paths a walk lists, so that a record made of nothing
// but unknown keys costs no more than a known one.
const maxUnknownFields = 64

// DecodeInfo is what a decoded record holds beyond what Helm 3's release type
// keeps. It is not part of Summary: Summary is written into index annotations and
// compared by value, and this is known only once the payload is decoded.
type DecodeInfo struct {
	// ApplyMethod is the record's top-level apply_method, which Helm 4 writes
	// ("ssa" for server-side apply, "csa" for client-side) and Helm 3 drops; ""
	// when absent, which Helm 4 reads as client-side apply.
	ApplyMethod string
	// UnknownFields are the JSON paths, sorted, of the record's fields that Helm
	// 3's types have no place for, such as "apply_method", "info.rollback_revision"
	// or "chart.templates[].modtime": Helm 3 drops them when it reads the record and
	// when it writes it back. Array elements show as "[]" and map values as "*". The
	// list stops at 64 paths. The chunked format's own top-level "labels" is not
	// one of them.
	UnknownFields []string
}

var jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()

// walkType is what the walk needs to know of a type, worked out once per type.
type walkType struct {
	// skip: the walk does not look inside a value of this type (it has its own
	// UnmarshalJSON, or holds no struct whose keys could be unknown).
	skip bool
	// fields maps the exact JSON names of a struct's fields to their types.
	fields map[string]reflect.Type
}

var walkTypes sync.Map // reflect.Type → *walkType

func walkTypeOf(t reflect.Type) *walkType {
	if wt, ok := walkTypes.Load(t); ok {
		return wt.(*walkType)
	}
	wt := &walkType{skip: reflect.PointerTo(t).Implements(jsonUnmarshaler) || !hasStruct(t)}
	if !wt.skip && t.Kind() == reflect.Struct {
		wt.fields = map[string]reflect.Type{}
		for _, f := range reflect.VisibleFields(t) {
			if name, ok := jsonName(f); ok {
				if _, dup := wt.fields[name]; !dup {
					wt.fields[name] = f.Type
				}
			}
		}
	}
	v, _ := walkTypes.LoadOrStore(t, wt)
	return v.(*walkType)
}

// errWalk is returned for JSON the walk cannot follow. The JSON a walk is given has
// been accepted by json.Unmarshal, so it means a bug, not bad input; the walk stops
// without reading out of bounds all the same.
var errWalk = errors.New("unexpected JSON")

// unknownFields walks the JSON of a release, which json.Unmarshal has already
// accepted, alongside root (Helm 3's release type, or the chunked payload's), and
// returns the paths of the object keys that type has no field for, sorted, and the
// top-level apply_method. It descends only into values whose type is a struct
// (through pointers, slices and maps) and decodes no value itself: a value of a type
// with its own UnmarshalJSON, or of a type that takes any key, is skipped.
//
// It scans the bytes in place rather than through json.Decoder, whose Token copies
// every value it passes (a manifest of megabytes, twice: into its buffer and into a
// string). Strings, which hold nearly all of a release's bytes, are skipped with
// bytes.IndexByte, so the walk costs little beside json.Unmarshal of the same JSON,
// and it allocates only the paths it returns.
func unknownFields(js []byte, root reflect.Type) (paths []string, applyMethod string, err error) {
	w := fieldWalk{b: js, seen: map[string]bool{}}
	if err := w.walk(root, ""); err != nil {
		return nil, "", err
	}
	slices.Sort(w.paths)
	return w.paths, w.applyMethod, nil
}

// fieldWalk is one walk of unknownFields: the JSON, the position in it and what
// it found.
type fieldWalk struct {
	b           []byte
	i           int
	seen        map[string]bool
	paths       []string
	applyMethod string
}

func (w *fieldWalk) walk(t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	wt := walkTypeOf(t)
	if wt.skip {
		return w.skipValue()
	}
	switch c := w.peek(); {
	case c == '[' && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
		return w.elements(']', func() error { return w.walk(t.Elem(), path+"[]") })
	case c == '{' && t.Kind() == reflect.Map:
		return w.elements('}', func() error {
			if _, err := w.key(); err != nil {
				return err
			}
			return w.walk(t.Elem(), joinPath(path, "*"))
		})
	case c == '{' && t.Kind() == reflect.Struct:
		return w.elements('}', func() error {
			key, err := w.key()
			if err != nil {
				return err
			}
			ft, ok := wt.fields[key]
			if !ok {
				var f reflect.StructField
				if f, ok = jsonField(t, key); ok {
					ft = f.Type
				}
			}
			if ok {
				return w.walk(ft, joinPath(path, key))
			}
			if path == "" && key == "apply_method" {
				w.applyMethod = ""
				if w.peek() == '"' {
					start := w.i
					if err := w.skipString(); err != nil {
						return err
					}
					_ = json.Unmarshal(w.b[start:w.i], &w.applyMethod)
				} else if err := w.skipValue(); err != nil {
					return err
				}
			} else if err := w.skipValue(); err != nil {
				return err
			}
			if p := joinPath(path, key); !w.seen[p] && len(w.seen) < maxUnknownFields {
				w.seen[p] = true
				w.paths = append(w.paths, p)
			}
			return nil
		})
	default:
		// null, a scalar Unmarshal accepted in place of a value, or a shape it
		// would not have accepted.
		return w.skipValue()
	}
}

// peek skips white space and returns the next byte, 0 at the end.
func (w *fieldWalk) peek() byte {
	for w.i < len(w.b) {
		switch c := w.b[w.i]; c {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return c
		}
	}
	return 0
}

// elements reads an array or an object, whose opening byte is next, calling each
// for every element (for an object, each reads the key, the colon and the value).
func (w *fieldWalk) elements(end byte, each func() error) error {
	w.i++
	if w.peek() == end {
		w.i++
		return nil
	}
	for {
		if err := each(); err != nil {
			return err
		}
		switch w.peek() {
		case ',':
			w.i++
		case end:
			w.i++
			return nil
		default:
			return errWalk
		}
	}
}

// key reads an object key and the colon after it.
func (w *fieldWalk) key() (string, error) {
	if w.peek() != '"' {
		return "", errWalk
	}
	start := w.i
	if err := w.skipString(); err != nil {
		return "", err
	}
	raw := w.b[start+1 : w.i-1]
	var key string
	// encoding/json unescapes a key and replaces invalid UTF-8 in it before it
	// matches the key with a field: so must the walk, for keys that need either.
	if bytes.IndexByte(raw, '\\') >= 0 || !utf8.Valid(raw) {
		if err := json.Unmarshal(w.b[start:w.i], &key); err != nil {
			return "", err
		}
	} else {
		key = string(raw)
	}
	if w.peek() != ':' {
		return "", errWalk
	}
	w.i++
	return key, nil
}

// skipString reads past the string whose opening quote is next. A quote ends it
// unless an odd number of backslashes comes right before it.
func (w *fieldWalk) skipString() error {
	w.i++
	for {
		j := bytes.IndexByte(w.b[w.i:], '"')
		if j < 0 {
			return errWalk
		}
		end := w.i + j
		w.i = end + 1
		n := 0
		for end-1-n >= 0 && w.b[end-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return nil
		}
	}
}

// skipValue reads past the value that is next, of any kind.
func (w *fieldWalk) skipValue() error {
	depth := 0
	for {
		switch c := w.peek(); c {
		case 0:
			return errWalk
		case '"':
			if err := w.skipString(); err != nil {
				return err
			}
		case '{', '[':
			depth++
			w.i++
		case '}', ']':
			depth--
			w.i++
		case ',', ':':
			if depth == 0 {
				return errWalk
			}
			w.i++
		default:
			// A number, true, false or null: up to the next delimiter.
			for w.i < len(w.b) && !isDelim(w.b[w.i]) {
				w.i++
			}
		}
		if depth <= 0 {
			if depth < 0 {
				return errWalk
			}
			return nil
		}
	}
}

// isDelim reports whether c ends a number or a literal.
func isDelim(c byte) bool {
	switch c {
	case ',', ':', ']', '}', ' ', '\t', '\n', '\r', '"', '{', '[':
		return true
	}
	return false
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// hasStruct reports whether a value of type t can hold a struct whose fields the
// walk checks, through pointers, slices, arrays and maps. []byte is a string in
// JSON.
func hasStruct(t reflect.Type) bool {
	for {
		switch t.Kind() {
		case reflect.Pointer, reflect.Map:
			t = t.Elem()
		case reflect.Slice, reflect.Array:
			if t.Elem().Kind() == reflect.Uint8 {
				return false
			}
			t = t.Elem()
		case reflect.Struct:
			return !reflect.PointerTo(t).Implements(jsonUnmarshaler)
		default:
			return false
		}
	}
}

// jsonName returns the JSON name encoding/json gives struct field f, and whether
// encoding/json fills f from a key at all.
func jsonName(f reflect.StructField) (string, bool) {
	if !f.IsExported() || f.Anonymous && f.Type.Kind() == reflect.Struct {
		return "", false
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return "", false
	}
	if name == "" {
		name = f.Name
	}
	return name, true
}

// jsonField finds the field of struct t that encoding/json fills from key: by its
// JSON name, exactly or else ignoring case as encoding/json does, fields of embedded
// structs included.
func jsonField(t reflect.Type, key string) (reflect.StructField, bool) {
	var folded reflect.StructField
	found := false
	for _, f := range reflect.VisibleFields(t) {
		name, ok := jsonName(f)
		if !ok {
			continue
		}
		if name == key {
			return f, true
		}
		if !found && strings.EqualFold(name, key) {
			folded, found = f, true
		}
	}
	return folded, found
}
