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
	if err == nil {
		return nil
	}
	if e := refusal(err, CodeInvalidParams, "invalid params"); e != nil {
		return e
	}
	return Errorf(CodeInvalidParams, "invalid params: %v", err)
}

// refusal is the answer to an object unmarshalStrict refused for a key twice or a member of the
// wrong type (or an *Error of a field's own), "what: why" with code; nil for any other error.
func refusal(err error, code int, what string) *Error {
	var (
		de  *dupError
		se  *jsonv2.SemanticError
		rpc *Error
	)
	switch {
	case errors.As(err, &rpc):
		return rpc
	case errors.As(err, &de):
		return Errorf(code, "%s: %v", what, de)
	case !errors.As(err, &se):
		return nil
	case se.Err == nil && se.GoType != nil && se.JSONKind != 0:
		return Errorf(code, "%s: %q must be %s, not %s", what, path(se.JSONPointer), cmp.Or(goKinds[se.GoType.Kind()], "a number"), kindNames[se.JSONKind])
	case se.JSONPointer != "":
		return Errorf(code, "%s: %q: %v", what, path(se.JSONPointer), err)
	}
	return Errorf(code, "%s: %v", what, err)
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
//
// v's raw fields are kept from the members readObject found; only the rest is handed to the v2
// decoder. A struct that must not read a big member it does not use declares it as a Text:
// skipping it is reading it in full (review's observer and openDiff's proposal, issue 27).
func unmarshalStrict(d []byte, v any, dups bool) error {
	raw := rawFields(reflect.TypeOf(v))
	if raw == nil {
		return dupOf(jsonv2.Unmarshal(d, v))
	}
	ms, err := readObject(d, dups)
	if err != nil {
		return dupOf(err)
	}
	rv := reflect.ValueOf(v).Elem()
	rest := append(make([]byte, 0, 256), '{') // the members not kept raw, as an object of their own
	for _, m := range ms {
		if index, ok := raw[m.name]; ok {
			if err := keepRaw(rv.FieldByIndex(index), m.value); err != nil {
				return fmt.Errorf("%q: %w", m.name, err)
			}
			continue
		}
		if len(rest) > 1 {
			rest = append(rest, ',')
		}
		rest, _ = jsontext.AppendQuote(rest, m.name) // a name read from valid JSON always quotes
		rest = append(append(rest, ':'), m.value...)
	}
	return dupOf(jsonv2.Unmarshal(append(rest, '}'), v))
}

func keepRaw(dst reflect.Value, value []byte) error {
	if t, ok := dst.Addr().Interface().(*Text); ok {
		return t.keep(value)
	}
	dst.SetBytes(value) // a json.RawMessage aliases params, as Decode's Params alias the message
	return nil
}

// kindNames names JSON's types as encoding/json's type errors do.
var kindNames = map[jsontext.Kind]string{'"': "string", '0': "number", '{': "object", '[': "array", 't': "bool", 'f': "bool", 'n': "null"}

// goKinds says what JSON a Go kind is decoded from, for an answer; the others are numbers.
var goKinds = map[reflect.Kind]string{reflect.String: "a string", reflect.Bool: "a boolean", reflect.Slice: "an array",
	reflect.Array: "an array", reflect.Struct: "an object", reflect.Map: "an object", reflect.Pointer: "an object"}

// path writes a JSON pointer as encoding/json names a field: "range.start.line".
func path(p jsontext.Pointer) string { return strings.Join(slices.Collect(p.Tokens()), ".") }

var (
	rawCache       sync.Map // reflect.Type → map[string][]int
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	textType       = reflect.TypeFor[Text]()
)

// rawFields maps the names v2 gives the json.RawMessage and Text fields of the struct t points
// to (the tag's, else the Go name; embedded structs' included) to their index; nil if none.
func rawFields(t reflect.Type) map[string][]int {
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil
	}
	if raw, ok := rawCache.Load(t); ok {
		return raw.(map[string][]int)
	}
	var raw map[string][]int
	var add func(t reflect.Type, index []int)
	add = func(t reflect.Type, index []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			name, _, _ := strings.Cut(tag, ",")
			idx := append(append([]int(nil), index...), i)
			switch {
			case tag == "-" || !f.IsExported() && !f.Anonymous:
			case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
				add(f.Type, idx)
			case f.Type == rawMessageType || f.Type == textType:
				if raw == nil {
					raw = map[string][]int{}
				}
				raw[cmp.Or(name, f.Name)] = idx
			}
		}
	}
	add(t.Elem(), nil)
	rawCache.Store(t, raw)
	return raw
}

// Required returns a CodeInvalidParams error naming field when ok is false.
func Required(ok bool, field string) error {
	if ok {
		return nil
	}
	return Errorf(CodeInvalidParams, "invalid params: %q is required", field)
}
