package jsonrpc

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
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
// duplicate key at any level is refused, and member names are matched exactly (v2's default),
// as the bridge's peers and the MCP go-sdk match them: a name that matches a field only when
// case is ignored ("PATH" for "path") is an unknown member, ignored like any other.
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
		de  *dupError
		se  *jsonv2.SemanticError
		rpc *Error
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &rpc):
		return rpc
	case errors.As(err, &de):
		return Errorf(CodeInvalidParams, "invalid params: %v", de)
	case errors.As(err, &se) && se.Err == nil && se.GoType != nil && se.JSONKind != 0:
		return Errorf(CodeInvalidParams, "invalid params: %q must be %s, not %s", path(se.JSONPointer), kind(se.GoType.Kind()), kindName(se.JSONKind))
	case errors.As(err, &se) && se.JSONPointer != "":
		return Errorf(CodeInvalidParams, "invalid params: %q: %v", path(se.JSONPointer), err)
	}
	return Errorf(CodeInvalidParams, "invalid params: %v", err)
}

// dupError is a name twice in one object.
type dupError struct{ key string }

func (e *dupError) Error() string { return fmt.Sprintf("duplicate key %q", e.key) }

// dupOf turns jsontext's duplicate-name error into a *dupError naming the key; other errors are
// returned as they are.
func dupOf(err error) error {
	var se *jsontext.SyntacticError
	if errors.Is(err, jsontext.ErrDuplicateName) && errors.As(err, &se) {
		return &dupError{se.JSONPointer.LastToken()}
	}
	return err
}

// unmarshalStrict decodes the JSON object d into v as UnmarshalParams describes; with dups a
// name may repeat below the outermost object. Its errors: *dupError, jsontext's syntax errors, or
// the v2 decoder's (*jsonv2.SemanticError).
func unmarshalStrict(d []byte, v any, dups bool) error {
	rest, err := decodable(d, v, dups)
	if err != nil {
		return err
	}
	return dupOf(jsonv2.Unmarshal(rest, v))
}

// decodable keeps v's raw fields from the object d and returns what is left for the v2 decoder.
// A big object's members that name no field of v are left out too, once readObject has checked
// them: v2 would only skip them, and skipping a 10 MiB proposal is reading it in full (~20 ms;
// review's observer reads openDiff's path from arguments that carry the proposal, issue 27).
func decodable(d []byte, v any, dups bool) ([]byte, error) {
	fs := fieldsOf(reflect.TypeOf(v))
	if fs.raw == nil && (len(d) < bigString || fs.names == nil) {
		return d, nil
	}
	ms, err := readObject(d, dups)
	if err != nil {
		return nil, dupOf(err)
	}
	rv := reflect.ValueOf(v).Elem()
	rest := append(make([]byte, 0, 256), '{') // the members not kept raw, as an object of their own
	for _, m := range ms {
		if index, ok := fs.raw[m.name]; ok {
			if err := keepRaw(rv.FieldByIndex(index), m.value); err != nil {
				return nil, fmt.Errorf("%q: %w", m.name, err)
			}
			continue
		}
		if fs.names != nil && !fs.names[m.name] {
			continue
		}
		if len(rest) > 1 {
			rest = append(rest, ',')
		}
		rest, _ = jsontext.AppendQuote(rest, m.name) // a name read from valid JSON always quotes
		rest = append(append(rest, ':'), m.value...)
	}
	return append(rest, '}'), nil
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
func path(p jsontext.Pointer) string { return strings.Join(slices.Collect(p.Tokens()), ".") }

var (
	fieldsCache    sync.Map // reflect.Type → fields
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	textType       = reflect.TypeFor[Text]()
)

// fields is what unmarshalStrict needs to know of the struct a pointer type points to.
type fields struct {
	// raw maps the names v2 gives the json.RawMessage and Text fields (the tag's, else the Go
	// name; embedded structs' included) to their index; nil if none.
	raw map[string][]int
	// names holds every name a member can match exactly, raw ones included; nil where v2 could
	// match a member by another name or keep unknown ones (a case: or embed option, an embedded
	// pointer or fallback, a type with its own unmarshal method), so that none may be left out.
	names map[string]bool
}

func fieldsOf(t reflect.Type) fields {
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return fields{}
	}
	if fs, ok := fieldsCache.Load(t); ok {
		return fs.(fields)
	}
	var raw map[string][]int
	names, exact := map[string]bool{}, !hasUnmarshaler(t)
	var add func(t reflect.Type, index []int)
	add = func(t reflect.Type, index []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			name, opts, _ := strings.Cut(tag, ",")
			idx := append(append([]int(nil), index...), i)
			if strings.Contains(opts, "case:") || strings.Contains(opts, "embed") || strings.Contains(opts, "inline") || strings.Contains(opts, "unknown") {
				exact = false
			}
			switch {
			case tag == "-" || !f.IsExported() && !f.Anonymous:
			case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
				if hasUnmarshaler(reflect.PointerTo(f.Type)) {
					exact = false
				}
				add(f.Type, idx)
			case f.Anonymous && name == "":
				exact = false // an embedded pointer, map or jsontext.Value: v2 may embed it
			default:
				names[cmp.Or(name, f.Name)] = true
				if f.Type == rawMessageType || f.Type == textType {
					if raw == nil {
						raw = map[string][]int{}
					}
					raw[cmp.Or(name, f.Name)] = idx
				}
			}
		}
	}
	add(t.Elem(), nil)
	fs := fields{raw: raw}
	if exact {
		fs.names = names
	}
	fieldsCache.Store(t, fs)
	return fs
}

// hasUnmarshaler reports whether the pointer type t decodes itself (v1's or v2's method).
func hasUnmarshaler(t reflect.Type) bool {
	return t.Implements(reflect.TypeFor[json.Unmarshaler]()) || t.Implements(reflect.TypeFor[jsonv2.UnmarshalerFrom]())
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
