package jsonrpc

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// UnmarshalParams decodes params into v (a pointer to a struct) with encoding/json/v2
// (github.com/go-json-experiment/json). Missing or null params decode as {}. Errors are *Error
// with CodeInvalidParams naming the offending member.
//
// Strict, because a message must read the same in a log (--trace) as where it runs: a
// duplicate key at any level is refused, member names are matched exactly (v2's default), and a
// name that matches a field only when case is ignored ("PATH" for "path"), which encoding/json
// would have taken for it, is refused rather than ignored (the MCP go-sdk matches
// case-sensitively for the same reason).
//
// Fields of type json.RawMessage or Text (a file's text) are kept as the slice of params they
// came in; only the other members are decoded, so a 10 MiB text is not unescaped or copied.
func UnmarshalParams(params json.RawMessage, v any) error {
	p := trimSpace(params)
	if len(p) == 0 || string(p) == "null" {
		p = []byte("{}")
	}
	if p[0] != '{' {
		return Errorf(CodeInvalidParams, "invalid params: params must be an object")
	}
	err := unmarshalStrict(p, v, false)
	var (
		ke  *keyError
		se  *jsonv2.SemanticError
		rpc *Error
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &rpc):
		return rpc
	case errors.As(err, &ke):
		return Errorf(CodeInvalidParams, "invalid params: %v", ke)
	case errors.As(err, &se) && se.Err == nil && se.GoType != nil && se.JSONKind != 0:
		return Errorf(CodeInvalidParams, "invalid params: %q must be %s, not %s", path(se.JSONPointer), kind(se.GoType.Kind()), kindName(se.JSONKind))
	case errors.As(err, &se) && se.JSONPointer != "":
		return Errorf(CodeInvalidParams, "invalid params: %q: %v", path(se.JSONPointer), err)
	}
	return Errorf(CodeInvalidParams, "invalid params: %v", err)
}

// keyError is a duplicate key, or a name that matches a field only when case is ignored.
type keyError struct {
	key  string
	want string // the field's name; "" for a duplicate
	in   string // the path of its object, if not the outermost
	err  error  // jsontext's error, for a duplicate
}

func (e *keyError) Unwrap() error { return e.err }

func (e *keyError) Error() string {
	if e.want == "" {
		return fmt.Sprintf("duplicate key %q", e.key)
	}
	in := ""
	if e.in != "" {
		in = fmt.Sprintf(" in %q", e.in)
	}
	return fmt.Sprintf("unknown key %q%s (names are case-sensitive: %q)", e.key, in, e.want)
}

// dupError turns jsontext's duplicate-name error into a *keyError naming the key; other errors
// are returned as they are.
func dupError(err error) error {
	var se *jsontext.SyntacticError
	if errors.Is(err, jsontext.ErrDuplicateName) && errors.As(err, &se) {
		return &keyError{key: se.JSONPointer.LastToken(), err: err}
	}
	return err
}

// unmarshalStrict decodes the JSON object d into v as UnmarshalParams describes; with dups a
// name may repeat below the outermost object. Its errors: *keyError, jsontext's syntax errors, or
// the v2 decoder's (*jsonv2.SemanticError).
func unmarshalStrict(d []byte, v any, dups bool) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return jsonv2.Unmarshal(d, v) // its error for a bad v
	}
	ms, err := readObject(d, rv.Elem().Type(), dups)
	if err != nil {
		return dupError(err)
	}
	fs := fieldsOf(rv.Elem().Type())
	if fs == nil || !fs.raw {
		return jsonv2.Unmarshal(d, v)
	}
	rest := append(make([]byte, 0, 256), '{') // the members not kept raw, as an object of their own
	for _, m := range ms {
		if f, _ := fs.lookup(m.name); f != nil && f.raw {
			if err := keepRaw(rv.Elem().FieldByIndex(f.index), m.value); err != nil {
				return fmt.Errorf("%q: %w", f.name, err)
			}
			continue
		}
		if len(rest) > 1 {
			rest = append(rest, ',')
		}
		rest, _ = jsontext.AppendQuote(rest, m.name) // a name read from valid JSON always quotes
		rest = append(append(rest, ':'), m.value...)
	}
	return jsonv2.Unmarshal(append(rest, '}'), v)
}

func keepRaw(dst reflect.Value, value []byte) error {
	if t, ok := dst.Addr().Interface().(*Text); ok {
		return t.keep(value)
	}
	dst.SetBytes(value) // a json.RawMessage aliases params, as Decode's Params alias the message
	return nil
}

// Kind names the JSON type of a value as encoding/json's type errors do ("string", "number",
// "object", "array", "bool"), for a json.Unmarshaler that reports one.
func Kind(b []byte) string {
	if len(b) == 0 {
		return "nothing"
	}
	return kindName(jsontext.Value(b).Kind())
}

func kindName(k jsontext.Kind) string {
	switch k {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// path writes a JSON pointer as encoding/json names a field: "range.start.line".
func path(p jsontext.Pointer) string {
	var parts []string
	for tok := range p.Tokens() {
		parts = append(parts, tok)
	}
	return strings.Join(parts, ".")
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
// is a *keyError. A nil set knows no names.
func (s *fieldSet) lookup(name string) (*field, error) {
	if s == nil {
		return nil, nil
	}
	for i := range s.list {
		if name == s.list[i].name {
			return &s.list[i], nil
		}
	}
	for i := range s.list {
		if strings.EqualFold(name, s.list[i].name) {
			return nil, &keyError{key: name, want: s.list[i].name}
		}
	}
	return nil, nil
}

var (
	fieldCache     sync.Map // reflect.Type → *fieldSet
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	textType       = reflect.TypeFor[Text]()
)

// fieldsOf lists the fields of struct type t by the names v2 gives them (the tag's, else the
// Go name), those of embedded structs included; nil if t is not a struct.
func fieldsOf(t reflect.Type) *fieldSet {
	if t == nil || t.Kind() != reflect.Struct {
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

func kind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map, reflect.Pointer:
		return "an object"
	}
	return "a number"
}

// Required returns a CodeInvalidParams error naming field when ok is false.
func Required(ok bool, field string) error {
	if ok {
		return nil
	}
	return Errorf(CodeInvalidParams, "invalid params: %q is required", field)
}
