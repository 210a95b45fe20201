package storage

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
)

// unknownFieldsDecoder is the walker unknownFields replaced, kept as the reference
// the scanner is checked against (TestUnknownFieldsMatchesDecoder) and measured
// against (BenchmarkUnknownFields): it walks with encoding/json's token Decoder,
// which copies every value it skips, strings of megabytes included.
func unknownFieldsDecoder(js []byte, root reflect.Type) (paths []string, applyMethod string, err error) {
	seen := map[string]bool{}
	dec := json.NewDecoder(bytes.NewReader(js))
	var walk func(t reflect.Type, path string) error
	walk = func(t reflect.Type, path string) error {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if reflect.PointerTo(t).Implements(refJSONUnmarshaler) || !refHasStruct(t) {
			return skipValue(dec)
		}
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return nil // null, or a scalar Unmarshal accepted in place of a value
		}
		switch {
		case d == '[' && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
			for dec.More() {
				if err := walk(t.Elem(), path+"[]"); err != nil {
					return err
				}
			}
		case d == '{' && t.Kind() == reflect.Map:
			for dec.More() {
				if _, err := dec.Token(); err != nil {
					return err
				}
				if err := walk(t.Elem(), refJoinPath(path, "*")); err != nil {
					return err
				}
			}
		case d == '{' && t.Kind() == reflect.Struct:
			for dec.More() {
				tok, err := dec.Token()
				if err != nil {
					return err
				}
				key, _ := tok.(string)
				if f, ok := refJSONField(t, key); ok {
					if err := walk(f.Type, refJoinPath(path, key)); err != nil {
						return err
					}
					continue
				}
				p := refJoinPath(path, key)
				if path == "" && key == "apply_method" {
					if err := dec.Decode(&applyMethod); err != nil {
						applyMethod = ""
					}
				} else if err := skipValue(dec); err != nil {
					return err
				}
				if !seen[p] && len(seen) < refMaxUnknownFields {
					seen[p] = true
					paths = append(paths, p)
				}
			}
		default:
			// A shape json.Unmarshal would not have accepted: skip what is left.
			for dec.More() {
				if err := skipValue(dec); err != nil {
					return err
				}
			}
		}
		_, err = dec.Token()
		return err
	}
	if err := walk(root, ""); err != nil {
		return nil, "", err
	}
	slices.Sort(paths)
	return paths, applyMethod, nil
}

// The reference walk matches keys to fields by itself, as encoding/json does, so
// that it checks the scanner's matching too.

// refMaxUnknownFields is where the walks stop collecting paths (DecodeInfo says 64).
const refMaxUnknownFields = 64

var refJSONUnmarshaler = reflect.TypeFor[json.Unmarshaler]()

func refJoinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// refHasStruct reports whether a value of type t can hold a struct whose fields the
// walk checks, through pointers, slices, arrays and maps. []byte is a string in
// JSON.
func refHasStruct(t reflect.Type) bool {
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
			return !reflect.PointerTo(t).Implements(refJSONUnmarshaler)
		default:
			return false
		}
	}
}

// refJSONName returns the JSON name encoding/json gives struct field f, and whether
// encoding/json fills f from a key at all.
func refJSONName(f reflect.StructField) (string, bool) {
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

// refJSONField finds the field of struct t that encoding/json fills from key: by its
// JSON name, exactly or else ignoring case as encoding/json does, fields of embedded
// structs included.
func refJSONField(t reflect.Type, key string) (reflect.StructField, bool) {
	var folded reflect.StructField
	found := false
	for _, f := range reflect.VisibleFields(t) {
		name, ok := refJSONName(f)
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
