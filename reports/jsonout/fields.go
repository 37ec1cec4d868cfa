package jsonout

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
)

// Fields adds the exported fields of the struct v points to, in their
// order, each under its json tag's name, by Object's rules: a string's
// exact bytes beside it in key_b64 when they are not UTF-8, raw JSON
// (json.RawMessage) as it came, escapes for what a terminal would act
// on. A typed record is so written by the tags that encoding/json reads
// it back by, and its keys are spelled once.
//
// Beside encoding/json's rules (the tag's name, "-", omitempty, an
// embedded struct's fields inlined and left out when its pointer is nil),
// a nil slice is written [] and a nil map {}: no list of a record is null.
func (o *Object) Fields(v any) *Object {
	addFields(o, reflect.ValueOf(v))
	return o
}

var rawMessage = reflect.TypeFor[json.RawMessage]()

func addFields(o *Object, v reflect.Value) {
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		fv := v.Field(i)
		switch {
		case !f.IsExported() || name == "-":
		case f.Anonymous && name == "":
			if fv.Kind() != reflect.Pointer || !fv.IsNil() {
				addFields(o, fv)
			}
		case opts == "omitempty" && isEmpty(fv):
		default:
			if name == "" {
				name = f.Name
			}
			addValue(o, name, fv)
		}
	}
}

func addValue(o *Object, key string, v reflect.Value) {
	switch {
	case v.Type() == rawMessage:
		o.Raw(key, v.Bytes())
	case v.Kind() == reflect.Pointer && v.IsNil():
		o.Raw(key, nil)
	case v.Kind() == reflect.Struct || v.Kind() == reflect.Pointer && v.Elem().Kind() == reflect.Struct:
		o.Raw(key, (&Object{}).Fields(v.Interface()).Bytes())
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Struct:
		items := make([][]byte, v.Len())
		for i := range items {
			items[i] = (&Object{}).Fields(v.Index(i).Interface()).Bytes()
		}
		o.Raw(key, RawArray(items))
	case v.Kind() == reflect.Map:
		keys := make([]string, 0, v.Len())
		for _, k := range v.MapKeys() {
			keys = append(keys, k.String())
		}
		sort.Strings(keys)
		m := &Object{}
		for _, k := range keys {
			addValue(m, k, v.MapIndex(reflect.ValueOf(k).Convert(v.Type().Key())))
		}
		o.Raw(key, m.Bytes())
	case v.Kind() == reflect.Slice && v.IsNil():
		o.Set(key, reflect.MakeSlice(v.Type(), 0, 0).Interface())
	default:
		o.Set(key, v.Interface())
	}
}

// isEmpty is omitempty's empty, as encoding/json has it.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	}
	return v.IsZero()
}
