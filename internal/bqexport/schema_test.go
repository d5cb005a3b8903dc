package bqexport

import (
	"bytes"
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/schema.json from Row")

// The schema file is BigQuery's shape, has the columns a table of samples
// is queried by, and is the one committed in testdata (a column renamed or
// retyped breaks the tables loaded before: -update after a deliberate one).
func TestSchemaFile(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSchema(&buf); err != nil {
		t.Fatal(err)
	}
	cols, err := parseSchemaFile(buf.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	byName := map[string]column{}
	for _, c := range cols {
		byName[c["name"].(string)] = c
	}
	for name, want := range map[string]string{
		"run_uid": "STRING REQUIRED", "kind": "STRING REQUIRED", "namespace": "STRING REQUIRED", "benchmark": "STRING REQUIRED",
		"campaign": "STRING NULLABLE", "finished": "TIMESTAMP REQUIRED", "config_id": "STRING REQUIRED", "test": "STRING REQUIRED",
		"metric": "STRING REQUIRED", "value": "FLOAT REQUIRED", "unit": "STRING REQUIRED", "repetition": "INTEGER REQUIRED",
		"warmup": "BOOLEAN REQUIRED", "sample_time": "TIMESTAMP NULLABLE", "labels": "RECORD REPEATED", "nodes": "RECORD REPEATED",
	} {
		c := byName[name]
		if got := strings.TrimSpace(toString(c["type"]) + " " + toString(c["mode"])); got != want {
			t.Errorf("column %s: %q, want %q", name, got, want)
		}
	}
	labels, _ := subColumns(byName["labels"])
	if len(labels) != 2 || labels[0]["name"] != "key" || labels[1]["name"] != "value" || labels[0]["mode"] != "REQUIRED" {
		t.Errorf("labels' fields: %v", labels)
	}
	golden := "testdata/schema.json"
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want, err := os.ReadFile(golden); err != nil || !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("the schema differs from %s (%v): a column changed? go test ./internal/bqexport -run TestSchemaFile -update, if meant:\n%s", golden, err, buf.String())
	}
}

func toString(v any) string { s, _ := v.(string); return s }

// A definition against Row's rules does not make a schema.
func TestFieldsOfRefusesWhatBigQueryCouldNotLoad(t *testing.T) {
	for name, typ := range map[string]any{
		"required but omitempty": struct {
			A string `json:"a,omitempty" bq:"required"`
		}{},
		"required and repeated": struct {
			A []string `json:"a" bq:"required"`
		}{},
		"nullable but always written": struct {
			A string `json:"a"`
		}{},
		"no BigQuery type": struct {
			A map[string]string `json:"a,omitempty"`
		}{},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: made a schema", name)
				}
			}()
			fieldsOf(reflect.TypeOf(typ))
		}()
	}
}

// The row check finds what BigQuery's loader would refuse.
func TestCheckRowFindsBadRows(t *testing.T) {
	cols, err := parseSchemaFile(mustSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	good := `{"run_uid":"u","kind":"k","namespace":"n","name":"x","benchmark":"b","started":"2026-11-20 02:00:00.000000 UTC",` +
		`"finished":"2026-11-20 02:10:00.000000 UTC","location":"l","config_id":"c","seq":1,"test":"t","metric":"m","value":1.5,` +
		`"unit":"u","repetition":0,"warmup":false,"labels":[{"key":"a","value":"b"}]}`
	if err := checkRow(cols, []byte(good), map[string]bool{}); err != nil {
		t.Fatalf("a good row: %v", err)
	}
	for _, tc := range []struct{ from, to, want string }{
		{`"kind":"k",`, ``, "kind: REQUIRED"},
		{`"kind":"k"`, `"kind":null`, "kind: REQUIRED"},
		{`"seq":1`, `"seq":1.5`, "seq"},
		{`"seq":1`, `"seq":"1"`, "seq"},
		{`"value":1.5`, `"value":"NaN"`, "value"},
		{`"warmup":false`, `"warmup":0`, "warmup"},
		{`"finished":"2026-11-20 02:10:00.000000 UTC"`, `"finished":"20/11/2026 02:10"`, "finished"},
		{`"finished":"2026-11-20 02:10:00.000000 UTC"`, `"finished":"2026-13-20 02:10:00.000000 UTC"`, "finished"},
		{`"labels":[{"key":"a","value":"b"}]`, `"labels":{"a":"b"}`, "labels: REPEATED"},
		{`"labels":[{"key":"a","value":"b"}]`, `"labels":[{"key":"a"}]`, "labels.value: REQUIRED"},
		{`"labels":[{"key":"a","value":"b"}]`, `"labels":[{"key":"a","value":"b","x":1}]`, "labels.x: no such column"},
		{`"unit":"u",`, `"unit":"u","extra":1,`, "extra: no such column"},
	} {
		bad := strings.Replace(good, tc.from, tc.to, 1)
		if err := checkRow(cols, []byte(bad), map[string]bool{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error about %q", bad, err, tc.want)
		}
	}
	for _, bad := range []string{
		`[{"name":"a","type":"STRING","mode":"REQUIRED"},{"name":"A","type":"STRING","mode":"NULLABLE"}]`,
		`[{"name":"a b","type":"STRING","mode":"REQUIRED"}]`,
		`[{"name":"a","type":"TEXT","mode":"REQUIRED"}]`,
		`[{"name":"a","type":"RECORD","mode":"REPEATED"}]`,
		`[{"name":"a","type":"STRING","mode":"REQUIRED","fields":[{"name":"b","type":"STRING","mode":"REQUIRED"}]}]`,
		`[{"name":"a","type":"STRING","mode":"REQUIRED","default":"x"}]`,
		`{"fields":[]}`,
	} {
		if _, err := parseSchemaFile([]byte(bad)); err == nil {
			t.Errorf("the schema %s passed", bad)
		}
	}
}

func mustSchema(t *testing.T) []byte {
	var buf bytes.Buffer
	if err := WriteSchema(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
