package chunked

import (
	"reflect"
	"unsafe"
)

// deepCopy returns a copy of *v that shares nothing a caller can change with it:
// every pointer, slice, map and interface it reaches is copied, and []byte
// contents with them. Strings are shared, since Go strings cannot be changed.
// Unexported struct fields are copied as they are (a time.Time's location, a
// chart's parent link, which a release decoded from JSON leaves nil).
//
// The release cache hands out such copies: Helm changes the releases it reads
// (an upgrade marks the one it read superseded, coalescing values writes into
// their maps), and none of that may reach the value the cache holds.
func deepCopy[T any](v *T) *T {
	if v == nil {
		return nil
	}
	out := new(T)
	c := copier{seen: map[uintptr]reflect.Value{}}
	c.into(reflect.ValueOf(out).Elem(), reflect.ValueOf(v).Elem())
	return out
}

// copier copies values; seen maps each pointer it copied to its copy, so that a
// value reached twice is copied once and a cycle ends.
type copier struct {
	seen map[uintptr]reflect.Value
}

// into sets dst, which is settable and of src's type, to a deep copy of src.
func (c *copier) into(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		if cp, ok := c.seen[src.Pointer()]; ok {
			dst.Set(cp)
			return
		}
		cp := reflect.New(src.Type().Elem())
		c.seen[src.Pointer()] = cp
		c.into(cp.Elem(), src.Elem())
		dst.Set(cp)
	case reflect.Struct:
		dst.Set(src) // every field, unexported ones as they are
		t := src.Type()
		for i := range src.NumField() {
			if t.Field(i).IsExported() && needsCopy(t.Field(i).Type) {
				c.into(dst.Field(i), src.Field(i))
			}
		}
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		cp := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		if needsCopy(src.Type().Elem()) {
			for i := range src.Len() {
				c.into(cp.Index(i), src.Index(i))
			}
		} else {
			reflect.Copy(cp, src)
		}
		dst.Set(cp)
	case reflect.Array:
		dst.Set(src)
		if needsCopy(src.Type().Elem()) {
			for i := range src.Len() {
				c.into(dst.Index(i), src.Index(i))
			}
		}
	case reflect.Map:
		if src.IsNil() {
			return
		}
		cp := reflect.MakeMapWithSize(src.Type(), src.Len())
		deep := needsCopy(src.Type().Elem())
		it := src.MapRange()
		for it.Next() {
			if !deep {
				cp.SetMapIndex(it.Key(), it.Value())
				continue
			}
			v := reflect.New(src.Type().Elem()).Elem()
			c.into(v, it.Value())
			cp.SetMapIndex(it.Key(), v)
		}
		dst.Set(cp)
	case reflect.Interface:
		if src.IsNil() {
			return
		}
		e := src.Elem()
		v := reflect.New(e.Type()).Elem()
		c.into(v, e)
		dst.Set(v)
	default:
		dst.Set(src)
	}
}

// needsCopy reports whether a value of type t can reach memory that a copy made
// by assignment would share.
func needsCopy(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return true
	case reflect.Array:
		return needsCopy(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && needsCopy(f.Type) {
				return true
			}
		}
	}
	return false
}

// heapSize estimates the bytes of memory *v holds: its own, and those of every
// string, slice, map and value it points to. It counts what the release cache
// bounds; the estimate need not be exact, only in proportion.
func heapSize[T any](v *T) int64 {
	if v == nil {
		return 0
	}
	s := sizer{seen: map[uintptr]bool{}}
	return int64(unsafe.Sizeof(*v)) + s.of(reflect.ValueOf(v).Elem())
}

type sizer struct{ seen map[uintptr]bool }

// mapEntryOverhead is what a map spends on an entry beyond its key and value.
const mapEntryOverhead = 16

// of returns the bytes v reaches beyond its own.
func (s *sizer) of(v reflect.Value) int64 {
	switch v.Kind() {
	case reflect.String:
		return int64(v.Len())
	case reflect.Pointer:
		if v.IsNil() || s.seen[v.Pointer()] {
			return 0
		}
		s.seen[v.Pointer()] = true
		return int64(v.Type().Elem().Size()) + s.of(v.Elem())
	case reflect.Struct:
		var n int64
		t := v.Type()
		for i := range v.NumField() {
			if t.Field(i).IsExported() {
				n += s.of(v.Field(i))
			}
		}
		return n
	case reflect.Slice:
		if v.IsNil() {
			return 0
		}
		n := int64(v.Cap()) * int64(v.Type().Elem().Size())
		if k := v.Type().Elem().Kind(); k != reflect.Uint8 && k != reflect.Int && k != reflect.Float64 && k != reflect.Bool {
			for i := range v.Len() {
				n += s.of(v.Index(i))
			}
		}
		return n
	case reflect.Array:
		var n int64
		for i := range v.Len() {
			n += s.of(v.Index(i))
		}
		return n
	case reflect.Map:
		if v.IsNil() {
			return 0
		}
		t := v.Type()
		n := int64(v.Len()) * (int64(t.Key().Size()) + int64(t.Elem().Size()) + mapEntryOverhead)
		it := v.MapRange()
		for it.Next() {
			n += s.of(it.Key()) + s.of(it.Value())
		}
		return n
	case reflect.Interface:
		if v.IsNil() {
			return 0
		}
		e := v.Elem()
		return int64(e.Type().Size()) + s.of(e)
	}
	return 0
}
