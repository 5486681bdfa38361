package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// UnmarshalParams decodes params into v (a pointer to a struct) with encoding/json. Missing or
// null params decode as {}. Errors are *Error with CodeInvalidParams naming the offending member.
//
// Stricter than encoding/json in two ways, because a message must read the same in a log
// (--trace) as where it runs: a duplicate key at any level is refused, and member names are
// matched exactly: a name that matches a field only when case is ignored ("PATH" for "path") is
// refused instead of being taken for it (the MCP go-sdk matches case-sensitively for the same
// reason).
//
// Fields of type json.RawMessage or Text (a file's text) are kept as the slice of params they
// came in, without encoding/json reading them: that is the one walk over members this adds. Only
// the other members go through encoding/json, so a 10 MiB text is not checked and copied again.
func UnmarshalParams(params json.RawMessage, v any) error {
	p := trimSpace(params)
	if len(p) == 0 || bytes.Equal(p, []byte("null")) {
		p = []byte("{}")
	}
	if p[0] != '{' {
		return Errorf(CodeInvalidParams, "invalid params: params must be an object")
	}
	err := decodeStrict(p, v, true)
	var (
		te  *json.UnmarshalTypeError
		ke  *keyError
		rpc *Error
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &rpc):
		return rpc
	case errors.As(err, &ke):
		return Errorf(CodeInvalidParams, "invalid params: %v", ke)
	case errors.As(err, &te):
		return Errorf(CodeInvalidParams, "invalid params: %q must be %s, not %s", te.Field, kind(te.Type.Kind().String()), te.Value)
	}
	return Errorf(CodeInvalidParams, "invalid params: %v", err)
}

// keyError is a duplicate key, or a name that matches a field only when case is ignored.
type keyError struct {
	key  string
	want string // the field's name; "" for a duplicate
}

func (e *keyError) Error() string {
	if e.want == "" {
		return fmt.Sprintf("duplicate key %q", e.key)
	}
	return fmt.Sprintf("unknown key %q (names are case-sensitive: %q)", e.key, e.want)
}

// decodeStrict decodes the JSON value d into v (see UnmarshalParams), names matched exactly if
// exact, else as encoding/json matches them (and no member kept raw). Its errors: syntax
// (errSyntax), *keyError, *json.UnmarshalTypeError, or encoding/json's.
func decodeStrict(d []byte, v any, exact bool) error {
	rv := reflect.ValueOf(v)
	if d = trimSpace(d); !exact || len(d) == 0 || d[0] != '{' || rv.Kind() != reflect.Pointer || rv.IsNil() {
		var st keyState
		if err := valid(d, &st); err != nil {
			return err
		}
		if st.depth > 0 {
			return &keyError{key: st.dup}
		}
		if exact && rv.Kind() == reflect.Pointer && !rv.IsNil() {
			if err := checkNames(d, rv.Elem().Type()); err != nil {
				return err
			}
		}
		return json.Unmarshal(d, v) // encoding/json's InvalidUnmarshalError for a bad v
	}
	fs := fieldsOf(rv.Elem().Type())
	var (
		st     keyState
		keyErr error
		rawErr error
		rest   []byte // the members encoding/json decodes, when some are kept raw
	)
	if fs != nil && fs.raw {
		rest = append(make([]byte, 0, 256), '{')
	}
	err := eachMember(d, &st, func(key, value []byte) error {
		f, err := fs.lookup(memberName(key))
		if err == nil && f != nil && !f.raw {
			err = checkNames(value, f.typ)
		}
		if err != nil {
			if keyErr == nil {
				keyErr = err
			}
			return nil
		}
		switch {
		case f != nil && f.raw && rawErr == nil:
			rawErr = keepRaw(rv.Elem().FieldByIndex(f.index), value)
			if rawErr != nil {
				rawErr = withField(f.name, rawErr)
			}
		case rest != nil:
			if len(rest) > 1 {
				rest = append(rest, ',')
			}
			rest = append(append(append(rest, key...), ':'), value...)
		}
		return nil
	})
	switch {
	case err != nil:
		return err
	case st.depth > 0:
		return &keyError{key: st.dup}
	case keyErr != nil:
		return keyErr
	case rawErr != nil:
		return rawErr
	case rest != nil:
		d = append(rest, '}')
	}
	return json.Unmarshal(d, v)
}

// checkNames applies the exact-name rule to the members of a nested value of type t.
func checkNames(value []byte, t reflect.Type) error {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		if t.Kind() != reflect.Pointer && len(value) > 0 && value[0] == '[' {
			return eachElement(value, func(e []byte) error { return checkNames(e, t.Elem()) })
		}
		t = t.Elem()
	}
	fs := fieldsOf(t)
	if fs == nil || len(value) == 0 || value[0] != '{' {
		return nil
	}
	return eachMember(value, nil, func(key, v []byte) error {
		f, err := fs.lookup(memberName(key))
		if err == nil && f != nil {
			err = checkNames(v, f.typ)
		}
		return err
	})
}

// eachElement calls fn for each element of the checked array d.
func eachElement(d []byte, fn func(e []byte) error) error {
	i := skipSpace(d, 1)
	if i < len(d) && d[i] == ']' {
		return nil
	}
	for {
		start := i
		var err error
		if i, err = scanValue(d, i, 1, nil); err != nil {
			return err
		}
		if err := fn(d[start:i]); err != nil {
			return err
		}
		var done bool
		if i, done, err = afterItem(d, i, ']'); done || err != nil {
			return err
		}
	}
}

func keepRaw(dst reflect.Value, value []byte) error {
	if t, ok := dst.Addr().Interface().(*Text); ok {
		return t.keep(value)
	}
	dst.SetBytes(value) // a json.RawMessage aliases params, as Decode's Params alias the message
	return nil
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
func Kind(b []byte) string {
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

// field is one struct field, by its JSON name.
type field struct {
	name  string
	index []int
	typ   reflect.Type
	raw   bool // json.RawMessage or Text: kept as it came
}

type fieldSet struct {
	list []field
	raw  bool // some field is raw
}

// lookup finds the field named exactly name; a name that matches one only when case is ignored
// (which encoding/json would take for it) is a *keyError. A nil set knows no names.
func (s *fieldSet) lookup(name []byte) (*field, error) {
	if s == nil {
		return nil, nil
	}
	for i := range s.list {
		if string(name) == s.list[i].name {
			return &s.list[i], nil
		}
	}
	for i := range s.list {
		if bytes.EqualFold(name, []byte(s.list[i].name)) {
			return nil, &keyError{key: string(name), want: s.list[i].name}
		}
	}
	return nil, nil
}

var (
	fieldCache     sync.Map // reflect.Type → *fieldSet (nil: not a struct)
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	textType       = reflect.TypeFor[Text]()
)

// fieldsOf lists the fields of struct type t as encoding/json names them, those of embedded
// structs included; nil if t is not a struct.
func fieldsOf(t reflect.Type) *fieldSet {
	if t.Kind() != reflect.Struct {
		return nil
	}
	if s, ok := fieldCache.Load(t); ok {
		return s.(*fieldSet)
	}
	s := &fieldSet{}
	var add func(t reflect.Type, index []int)
	add = func(t reflect.Type, index []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			name, _, _ := strings.Cut(tag, ",")
			if tag == "-" || !f.IsExported() && !f.Anonymous {
				continue
			}
			idx := append(append([]int(nil), index...), i)
			if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
				add(f.Type, idx)
				continue
			}
			if name == "" {
				name = f.Name
			}
			raw := f.Type == rawMessageType || f.Type == textType
			s.raw = s.raw || raw
			s.list = append(s.list, field{name: name, index: idx, typ: f.Type, raw: raw})
		}
	}
	add(t, nil)
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
