package jsonobj

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// UnmarshalExact is json.Unmarshal into v with every object member matched
// to a struct field by its exact name, letter case included, as the hosts
// read JSON (JavaScript's JSON.parse, Rust's serde). encoding/json matches
// a member to a field whatever its letter case ("Tool_Name", "TOOL_NAME"
// and, folding Unicode, "ſession_id" all fill the tool_name or session_id
// field) and keeps the last it matched, so it would read a value the host
// ignores, or one that the host reads under the exact name would lose to
// a variant written after it. Here a member no field names exactly is
// ignored, and a name given twice counts with its last value, as the
// hosts keep it. The rule holds at every level v's type describes:
// structs, pointers, slices, arrays and string-keyed maps of them.
// Errors are json.Unmarshal's.
func UnmarshalExact(data []byte, v any) error {
	return json.Unmarshal(Exact(data, v), v)
}

// DecodeMembers is UnmarshalExact of an object already split into its
// members (the last of a repeated name, as json.Unmarshal into a map
// gives them), into the struct v points to: each field is decoded from
// the member of exactly its name, if any, without parsing the object
// again; a value of no struct type (json.RawMessage) is kept as written,
// not compacted. A value of the wrong type is an error naming its member.
func DecodeMembers(obj map[string]json.RawMessage, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return errors.New("jsonobj: DecodeMembers needs a pointer to a struct")
	}
	s := rv.Elem()
	for name, f := range fields(s.Type()) {
		raw, ok := obj[name]
		if !ok {
			continue
		}
		field, err := s.FieldByIndexErr(f.Index)
		if err != nil {
			continue // behind a nil embedded pointer: json.Unmarshal would allocate it; bundlectl's types have none
		}
		if f.Type == rawMessage {
			// As json.Unmarshal keeps it, without its second pass over
			// what may be most of a 16 MiB event.
			if _, _, ok := Scan(raw, AnyKeys); !ok {
				return fmt.Errorf("member %q: %w", name, json.Unmarshal(raw, new(json.RawMessage)))
			}
			field.SetBytes(append([]byte(nil), raw...))
			continue
		}
		if err := json.Unmarshal(exact(raw, f.Type), field.Addr().Interface()); err != nil {
			return fmt.Errorf("member %q: %w", name, err)
		}
	}
	return nil
}

// Exact returns data keeping, in each object at a level v's type
// describes as a struct, only the members one of its fields names
// exactly (the last of a name given twice), so that json.Unmarshal into
// v reads what a case-sensitive reader reads. Values of other types
// (json.RawMessage, any, maps of them) are kept as written, compacted.
// Anything but valid JSON of that shape is returned as it is, for
// json.Unmarshal to refuse.
func Exact(data []byte, v any) []byte {
	return exact(data, reflect.TypeOf(v))
}

var (
	rawMessage      = reflect.TypeFor[json.RawMessage]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func exact(raw []byte, t reflect.Type) []byte {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return raw // a type that reads itself
	}
	switch t.Kind() {
	case reflect.Struct:
		return exactObject(raw, t)
	case reflect.Map:
		if t.Key().Kind() != reflect.String || !describes(t.Elem()) {
			return raw
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil || obj == nil {
			return raw
		}
		for k, v := range obj {
			obj[k] = exact(v, t.Elem())
		}
		return marshalOr(obj, raw)
	case reflect.Slice, reflect.Array:
		if !describes(t.Elem()) {
			return raw
		}
		var arr []json.RawMessage
		if json.Unmarshal(raw, &arr) != nil || arr == nil {
			return raw
		}
		for i, v := range arr {
			arr[i] = exact(v, t.Elem())
		}
		return marshalOr(arr, raw)
	}
	return raw
}

// describes reports whether t holds a struct somewhere that exact must
// filter; a value of any other type is kept as written.
func describes(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		return true
	case reflect.Map, reflect.Slice, reflect.Array:
		return describes(t.Elem())
	}
	return false
}

// exactObject keeps the members of the JSON object raw that a field of
// the struct type t names exactly.
func exactObject(raw []byte, t reflect.Type) []byte {
	members, isObject, ok := Scan(raw, AnyKeys) // one pass, where json.Unmarshal into a map took two and a copy
	if !ok || !isObject {
		return raw
	}
	obj := make(map[string]json.RawMessage, len(members))
	for _, m := range members {
		obj[m.Key] = m.Val // the last of a name given twice, as json.Unmarshal keeps it
	}
	kept := make(map[string]json.RawMessage, len(obj))
	for name, f := range fields(t) {
		if v, ok := obj[name]; ok {
			kept[name] = exact(v, f.Type)
		}
	}
	return marshalOr(kept, raw)
}

// fields yields the member name of each field encoding/json decodes into
// t, with the field (its Index from t): the json tag's name, else the Go
// name of an exported field; the fields of an embedded struct without a
// name of its own are t's own.
func fields(t reflect.Type) func(yield func(string, reflect.StructField) bool) {
	return func(yield func(string, reflect.StructField) bool) {
		var walk func(t reflect.Type, at []int) bool
		walk = func(t reflect.Type, at []int) bool {
			for i := range t.NumField() {
				f := t.Field(i)
				f.Index = append(slices.Clone(at), i)
				tag := f.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, _, _ := strings.Cut(tag, ",")
				ft := f.Type
				for ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
					if !walk(ft, f.Index) {
						return false
					}
					continue
				}
				if !f.IsExported() {
					continue
				}
				if name == "" {
					name = f.Name
				}
				if !yield(name, f) {
					return false
				}
			}
			return true
		}
		walk(t, nil)
	}
}

func marshalOr(v any, raw []byte) []byte {
	b, err := MarshalNoEscape(v)
	if err != nil {
		return raw
	}
	return b
}
