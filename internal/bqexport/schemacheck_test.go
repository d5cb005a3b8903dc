package bqexport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// The checks below read the schema file as BigQuery documents it, not
// through Field: a schema file is an array of columns, each with a name, a
// type and a mode, and a RECORD's columns in fields.

var (
	columnName  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,299}$`)
	columnTypes = map[string]bool{"STRING": true, "INTEGER": true, "FLOAT": true, "BOOLEAN": true, "TIMESTAMP": true, "RECORD": true}
	columnModes = map[string]bool{"NULLABLE": true, "REQUIRED": true, "REPEATED": true}
	// bqTimestamp is BigQuery's canonical timestamp: a date with dashes,
	// a time with colons, up to 6 fractional digits, a zone.
	bqTimestamp = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?( ?(UTC|Z|[+-]\d{2}:\d{2}))?$`)
	columnKeys  = map[string]bool{"name": true, "type": true, "mode": true, "description": true, "fields": true}
)

// column is a schema file's column, as decoded from JSON.
type column = map[string]any

// parseSchemaFile reads a schema file and checks its shape: every column
// named by BigQuery's rules and once (names are case-insensitive), of a
// known type and mode, a RECORD with columns and nothing else with any,
// descriptions within 1 024 characters, no key BigQuery does not know, at
// most 15 levels of RECORD.
func parseSchemaFile(data []byte) ([]column, error) {
	var cols []column
	if err := json.Unmarshal(data, &cols); err != nil {
		return nil, fmt.Errorf("the schema is not a JSON array of columns: %w", err)
	}
	return cols, checkColumns(cols, "", 1)
}

func checkColumns(cols []column, path string, depth int) error {
	if len(cols) == 0 {
		return fmt.Errorf("%s: no columns", path)
	}
	if depth > 15 {
		return fmt.Errorf("%s: more than 15 levels of RECORD", path)
	}
	seen := map[string]bool{}
	for _, c := range cols {
		name, _ := c["name"].(string)
		where := path + name
		for k := range c {
			if !columnKeys[k] {
				return fmt.Errorf("%s: unknown key %q", where, k)
			}
		}
		if !columnName.MatchString(name) {
			return fmt.Errorf("column %q: not a BigQuery column name", where)
		}
		if seen[strings.ToLower(name)] {
			return fmt.Errorf("%s: declared twice", where)
		}
		seen[strings.ToLower(name)] = true
		typ, _ := c["type"].(string)
		mode, _ := c["mode"].(string)
		if !columnTypes[typ] || !columnModes[mode] {
			return fmt.Errorf("%s: type %q, mode %q", where, c["type"], c["mode"])
		}
		if d, ok := c["description"]; ok {
			if s, ok := d.(string); !ok || len(s) > 1024 {
				return fmt.Errorf("%s: description %v", where, d)
			}
		}
		sub, err := subColumns(c)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if (typ == "RECORD") != (sub != nil) {
			return fmt.Errorf("%s: a %s with fields %v", where, typ, c["fields"])
		}
		if sub != nil {
			if err := checkColumns(sub, where+".", depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

func subColumns(c column) ([]column, error) {
	raw, ok := c["fields"]
	if !ok {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("fields %v: not a list of columns", raw)
	}
	out := make([]column, len(list))
	for i, v := range list {
		if out[i], ok = v.(column); !ok {
			return nil, fmt.Errorf("fields[%d] is not a column", i)
		}
	}
	return out, nil
}

// checkRow checks a line of NDJSON against the schema: every field
// declared, of its column's type, REQUIRED columns present (not null),
// REPEATED ones arrays. It adds each column it sees a value of to seen.
func checkRow(cols []column, line []byte, seen map[string]bool) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var row map[string]any
	if err := dec.Decode(&row); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	if dec.More() {
		return fmt.Errorf("more than one JSON value on the line")
	}
	return checkRecord(cols, row, "", seen)
}

func checkRecord(cols []column, rec map[string]any, path string, seen map[string]bool) error {
	byName := map[string]column{}
	for _, c := range cols {
		byName[c["name"].(string)] = c
	}
	for k := range rec {
		if _, ok := byName[k]; !ok {
			return fmt.Errorf("%s%s: no such column", path, k)
		}
	}
	for _, c := range cols {
		name, mode := c["name"].(string), c["mode"].(string)
		where := path + name
		v, ok := rec[name]
		if !ok || v == nil {
			if mode == "REQUIRED" {
				return fmt.Errorf("%s: REQUIRED, missing", where)
			}
			continue
		}
		seen[where] = true
		values := []any{v}
		if mode == "REPEATED" {
			list, ok := v.([]any)
			if !ok {
				return fmt.Errorf("%s: REPEATED, not an array: %v", where, v)
			}
			values = list
		}
		for _, v := range values {
			if err := checkValue(c, v, where, seen); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkValue(c column, v any, where string, seen map[string]bool) error {
	bad := func() error { return fmt.Errorf("%s: %T %v is no %s", where, v, v, c["type"]) }
	switch c["type"] {
	case "STRING":
		if _, ok := v.(string); !ok {
			return bad()
		}
	case "INTEGER":
		n, ok := v.(json.Number)
		if !ok {
			return bad()
		}
		if _, err := n.Int64(); err != nil {
			return bad()
		}
	case "FLOAT":
		n, ok := v.(json.Number)
		if !ok {
			return bad()
		}
		if _, err := n.Float64(); err != nil {
			return bad()
		}
	case "BOOLEAN":
		if _, ok := v.(bool); !ok {
			return bad()
		}
	case "TIMESTAMP":
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		// BigQuery's canonical form, and a real time.
		if !bqTimestamp.MatchString(s) {
			return fmt.Errorf("%s: %q is not in BigQuery's timestamp format", where, s)
		}
		if _, err := time.Parse(time.DateTime, strings.Replace(s[:19], "T", " ", 1)); err != nil {
			return fmt.Errorf("%s: %q: %w", where, s, err)
		}
	case "RECORD":
		rec, ok := v.(map[string]any)
		if !ok {
			return bad()
		}
		sub, _ := subColumns(c)
		return checkRecord(sub, rec, where+".", seen)
	default:
		return bad()
	}
	return nil
}
