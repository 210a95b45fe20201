package storage

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
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
		if reflect.PointerTo(t).Implements(jsonUnmarshaler) || !hasStruct(t) {
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
				if err := walk(t.Elem(), joinPath(path, "*")); err != nil {
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
				if f, ok := jsonField(t, key); ok {
					if err := walk(f.Type, joinPath(path, key)); err != nil {
						return err
					}
					continue
				}
				p := joinPath(path, key)
				if path == "" && key == "apply_method" {
					if err := dec.Decode(&applyMethod); err != nil {
						applyMethod = ""
					}
				} else if err := skipValue(dec); err != nil {
					return err
				}
				if !seen[p] && len(seen) < maxUnknownFields {
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
