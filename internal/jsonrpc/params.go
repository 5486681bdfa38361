package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
)

// UnmarshalParams decodes params into v (a pointer to a struct). Missing or null params decode as
// {}. Errors are *Error with CodeInvalidParams naming the offending field.
func UnmarshalParams(params json.RawMessage, v any) error {
	p := bytes.TrimSpace(params)
	if len(p) == 0 || bytes.Equal(p, []byte("null")) {
		p = []byte("{}")
	}
	if p[0] != '{' {
		return Errorf(CodeInvalidParams, "invalid params: params must be an object")
	}
	if err := json.Unmarshal(p, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return Errorf(CodeInvalidParams, "invalid params: %q must be %s, not %s", te.Field, kind(te.Type.Kind().String()), te.Value)
		}
		return Errorf(CodeInvalidParams, "invalid params: %v", err)
	}
	return nil
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
