package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
)

// UnmarshalParams decodes params into v (a pointer to a struct). Missing or null params decode as
// {}. Errors are *Error with CodeInvalidParams naming the offending field.
//
// The object is scanned once (scan.go) and each member decoded on its own slice: a 10 MiB file
// text is handed to its field's json.Unmarshaler, or kept as a json.RawMessage, without
// encoding/json checking it again. Members match fields as encoding/json matches them.
// json.RawMessage and RawKeeper fields alias params.
func UnmarshalParams(params json.RawMessage, v any) error {
	p := trimSpace(params)
	if len(p) == 0 || bytes.Equal(p, []byte("null")) {
		p = []byte("{}")
	}
	if p[0] != '{' {
		return Errorf(CodeInvalidParams, "invalid params: params must be an object")
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return unmarshalParamsSlow(p, v)
	}
	fields := fieldsOf(rv.Elem().Type())
	if fields == nil {
		return unmarshalParamsSlow(p, v)
	}
	var typeErr error // the first bad member; a syntax error anywhere comes first
	err := eachMember(p, func(key, value []byte) error {
		name, ok := unquote(key)
		if !ok || typeErr != nil {
			return nil
		}
		f := fields.lookup(name)
		if f == nil {
			return nil
		}
		if err := decodeField(rv.Elem().FieldByIndex(f.index), value); err != nil {
			typeErr = paramError(f.name, err)
		}
		return nil
	})
	if err != nil {
		return Errorf(CodeInvalidParams, "invalid params: %v", err)
	}
	return typeErr
}

// RawKeeper is a field type that keeps its member's JSON as it came, such as a file text passed
// through. UnmarshalParams calls KeepRawJSON with the checked value, which aliases params: a
// 10 MiB text is not copied. (json.Unmarshaler must copy: encoding/json may reuse its input.)
type RawKeeper interface {
	KeepRawJSON(value []byte) error
}

var (
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	rawKeeperType   = reflect.TypeFor[RawKeeper]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

// decodeField decodes one checked member into dst.
func decodeField(dst reflect.Value, value []byte) error {
	switch {
	case dst.Type() == rawMessageType:
		dst.SetBytes(value) // aliases params, as Decode's Params alias the message
		return nil
	case reflect.PointerTo(dst.Type()).Implements(rawKeeperType):
		return dst.Addr().Interface().(RawKeeper).KeepRawJSON(value)
	case reflect.PointerTo(dst.Type()).Implements(unmarshalerType):
		// The value was checked by the scan; json.Unmarshal would check it once more.
		return dst.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(value)
	case dst.Kind() == reflect.String && dst.Type().PkgPath() == "" && value[0] == '"':
		if s, ok := unquote(value); ok {
			dst.SetString(s)
			return nil
		}
	}
	return json.Unmarshal(value, dst.Addr().Interface())
}

func paramError(field string, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			field += "." + te.Field
		}
		return Errorf(CodeInvalidParams, "invalid params: %q must be %s, not %s", field, kind(te.Type.Kind().String()), te.Value)
	}
	return Errorf(CodeInvalidParams, "invalid params: %q: %v", field, err)
}

func unmarshalParamsSlow(p []byte, v any) error {
	if err := json.Unmarshal(p, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return Errorf(CodeInvalidParams, "invalid params: %q must be %s, not %s", te.Field, kind(te.Type.Kind().String()), te.Value)
		}
		return Errorf(CodeInvalidParams, "invalid params: %v", err)
	}
	return nil
}

// field is one decodable struct field, by its JSON name.
type field struct {
	name  string
	index []int
}

type fieldSet struct{ list []field }

// lookup matches name as encoding/json does: exactly, else ignoring case.
func (s *fieldSet) lookup(name string) *field {
	for i := range s.list {
		if s.list[i].name == name {
			return &s.list[i]
		}
	}
	for i := range s.list {
		if strings.EqualFold(s.list[i].name, name) {
			return &s.list[i]
		}
	}
	return nil
}

var fieldCache sync.Map // reflect.Type → *fieldSet (nil: not supported, use encoding/json)

// fieldsOf lists t's fields as encoding/json names them. Structs with embedded structs are left
// to encoding/json (nil): its rules for promoted fields are not worth repeating for params.
func fieldsOf(t reflect.Type) *fieldSet {
	if s, ok := fieldCache.Load(t); ok {
		return s.(*fieldSet)
	}
	s := &fieldSet{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			s = nil
			break
		}
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && f.Tag.Get("json") == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		s.list = append(s.list, field{name: name, index: f.Index})
	}
	fieldCache.Store(t, s)
	return s
}

func kind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int64", "float64", "uint":
		return "a number"
	case "slice":
		return "an array"
	case "struct", "map", "ptr":
		return "an object"
	}
	return k
}

// Required returns a CodeInvalidParams error naming field when ok is false.
func Required(ok bool, field string) error {
	if ok {
		return nil
	}
	return Errorf(CodeInvalidParams, "invalid params: %q is required", field)
}
