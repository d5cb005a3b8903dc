package bqexport

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
)

// Field is a column in BigQuery's JSON schema format, as `bq load` and
// `bq mk --schema` take it.
type Field struct {
	Name        string  `json:"name"`
	Type        string  `json:"type"`
	Mode        string  `json:"mode"`
	Description string  `json:"description,omitempty"`
	Fields      []Field `json:"fields,omitempty"`
}

// Schema is Row's table schema.
var Schema = sync.OnceValue(func() []Field { return fieldsOf(reflect.TypeFor[Row]()) })

// WriteSchema writes the schema file.
func WriteSchema(w io.Writer) error {
	data, err := json.MarshalIndent(Schema(), "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

var timestampType = reflect.TypeFor[Timestamp]()

// fieldsOf is the columns of a struct type. A field that does not fit the
// rules Row states is a programming error, and panics.
func fieldsOf(t reflect.Type) []Field {
	var out []Field
	for i := range t.NumField() {
		sf := t.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		omitEmpty := opts == "omitempty"
		f := Field{Name: name, Mode: "NULLABLE", Description: sf.Tag.Get("desc")}
		ft := sf.Type
		switch {
		case sf.Tag.Get("bq") == "required":
			f.Mode = "REQUIRED"
			if omitEmpty || ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
				panic(fmt.Sprintf("bqexport: %s.%s is required: it must be a plain value, always written", t.Name(), sf.Name))
			}
		case ft.Kind() == reflect.Slice:
			f.Mode, ft = "REPEATED", ft.Elem()
		case !omitEmpty:
			panic(fmt.Sprintf("bqexport: %s.%s is NULLABLE: it must be omitempty, left out when empty", t.Name(), sf.Name))
		case ft.Kind() == reflect.Pointer:
			ft = ft.Elem()
		}
		switch {
		case ft == timestampType:
			f.Type = "TIMESTAMP"
		case ft.Kind() == reflect.String:
			f.Type = "STRING"
		case ft.Kind() == reflect.Int || ft.Kind() == reflect.Int64:
			f.Type = "INTEGER"
		case ft.Kind() == reflect.Float64:
			f.Type = "FLOAT"
		case ft.Kind() == reflect.Bool:
			f.Type = "BOOLEAN"
		case ft.Kind() == reflect.Struct:
			f.Type, f.Fields = "RECORD", fieldsOf(ft)
		default:
			panic(fmt.Sprintf("bqexport: %s.%s: no BigQuery type for %s", t.Name(), sf.Name, ft))
		}
		out = append(out, f)
	}
	return out
}
