// Package bqexport writes the results database's samples in BigQuery's load
// format: newline-delimited JSON, one row per sample with its run's
// metadata, and the table's schema as BigQuery's JSON schema file, both
// from one Go definition (Row), so that `bq load` takes them as they are.
package bqexport
