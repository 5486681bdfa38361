package jsonrpc

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
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
	if err := decodeStruct(rv.Elem(), fields, p, true); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return paramError(te.Field, &json.UnmarshalTypeError{Value: te.Value, Type: te.Type})
		}
		return Errorf(CodeInvalidParams, "invalid params: %v", err)
	}
	return nil
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
	textType        = reflect.TypeFor[encoding.TextUnmarshaler]()
	numberType      = reflect.TypeFor[json.Number]()
)

// decodeField decodes one checked member into dst. Strings, booleans, numbers and structs of
// them (a selection's range) are decoded here; anything else by encoding/json on its slice. The
// results and errors are encoding/json's (FuzzUnmarshalParams holds them to it).
func decodeField(dst reflect.Value, value []byte) error {
	t := dst.Type()
	switch methodsOf(t) {
	case asRaw:
		dst.SetBytes(value) // aliases params, as Decode's Params alias the message
		return nil
	case asKeeper:
		return dst.Addr().Interface().(RawKeeper).KeepRawJSON(value)
	case asUnmarshaler:
		// The value was checked by the scan; json.Unmarshal would check it once more.
		return dst.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(value)
	case asJSON:
		return json.Unmarshal(value, dst.Addr().Interface())
	}
	null := value[0] == 'n'
	wrong := func() error { return typeError(dst, value) }
	switch t.Kind() {
	case reflect.String:
		if null {
			return nil
		}
		if value[0] != '"' {
			return wrong()
		}
		if s, ok := unquote(value); ok {
			dst.SetString(s)
			return nil
		}
	case reflect.Bool:
		switch {
		case null:
		case string(value) == "true" || string(value) == "false":
			dst.SetBool(value[0] == 't')
		default:
			return wrong()
		}
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if null {
			return nil
		}
		n, err := strconv.ParseInt(string(value), 10, 64)
		if err != nil || dst.OverflowInt(n) {
			return wrong()
		}
		dst.SetInt(n)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if null {
			return nil
		}
		n, err := strconv.ParseUint(string(value), 10, 64)
		if err != nil || dst.OverflowUint(n) {
			return wrong()
		}
		dst.SetUint(n)
		return nil
	case reflect.Float32, reflect.Float64:
		if null {
			return nil
		}
		if c := value[0]; c != '-' && (c < '0' || c > '9') {
			return wrong()
		}
		f, err := strconv.ParseFloat(string(value), t.Bits())
		if err != nil || dst.OverflowFloat(f) {
			return wrong()
		}
		dst.SetFloat(f)
		return nil
	case reflect.Struct:
		fields := fieldsOf(t)
		switch {
		case fields == nil:
		case null:
			return nil
		case value[0] != '{':
			return wrong()
		default:
			return decodeStruct(dst, fields, value, false)
		}
	case reflect.Pointer:
		if null {
			dst.SetZero()
			return nil
		}
		if dst.IsNil() {
			dst.Set(reflect.New(t.Elem()))
		}
		return decodeField(dst.Elem(), value)
	}
	return json.Unmarshal(value, dst.Addr().Interface())
}

// How a type is decoded, by the methods it has (cached: Implements walks method sets).
const (
	asValue       = iota // by its kind, in decodeField
	asRaw                // json.RawMessage: kept as it came
	asKeeper             // RawKeeper
	asUnmarshaler        // json.Unmarshaler, given the checked value
	asJSON               // encoding.TextUnmarshaler or json.Number: encoding/json's rules
)

var methodCache sync.Map // reflect.Type → int

func methodsOf(t reflect.Type) int {
	if m, ok := methodCache.Load(t); ok {
		return m.(int)
	}
	pt := reflect.PointerTo(t)
	m := asValue
	switch {
	case t == rawMessageType:
		m = asRaw
	case pt.Implements(rawKeeperType):
		m = asKeeper
	case pt.Implements(unmarshalerType):
		m = asUnmarshaler
	case pt.Implements(textType) || t == numberType:
		m = asJSON
	}
	methodCache.Store(t, m)
	return m
}

// typeError is encoding/json's error for value in dst.
func typeError(dst reflect.Value, value []byte) error {
	v := valueKind(value)
	if v == "number" && (dst.CanInt() || dst.CanUint() || dst.CanFloat()) {
		v = "number " + string(value) // as encoding/json: the number that did not fit
	}
	return &json.UnmarshalTypeError{Value: v, Type: dst.Type()}
}

// decodeStruct decodes the object value into dst member by member, in the same pass that checks
// its syntax (top: value is the whole params; else a member already checked once). A syntax
// error anywhere comes first; else the first bad member, as an *json.UnmarshalTypeError whose
// Field is its path.
func decodeStruct(dst reflect.Value, fields *fieldSet, value []byte, top bool) error {
	var typeErr error
	member := func(key, value []byte) error {
		if typeErr != nil {
			return nil
		}
		f := fields.lookup(memberName(key))
		if f == nil {
			return nil
		}
		if err := decodeField(dst.FieldByIndex(f.index), value); err != nil {
			typeErr = withField(f.name, err)
		}
		return nil
	}
	var err error
	if top {
		err = eachMember(value, member)
	} else {
		_, err = scanObject(value, 0, 1, member)
	}
	if err != nil {
		return err
	}
	return typeErr
}

// withField prefixes a type error's field path with name.
func withField(name string, err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return fmt.Errorf("%q: %w", name, err)
	}
	c := *te
	c.Field = name
	if te.Field != "" {
		c.Field += "." + te.Field
	}
	return &c
}

// Kind names the JSON type of a value as encoding/json's type errors do ("string", "number",
// "object", "array", "bool"), for a json.Unmarshaler that reports one.
func Kind(b []byte) string { return valueKind(b) }

func valueKind(b []byte) string {
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	}
	return "number"
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
func (s *fieldSet) lookup(name []byte) *field {
	for i := range s.list {
		if string(name) == s.list[i].name {
			return &s.list[i]
		}
	}
	for i := range s.list {
		if bytes.EqualFold(name, []byte(s.list[i].name)) {
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
