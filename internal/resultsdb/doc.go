// Package resultsdb is the results database: every finished run's samples
// and metadata, indexed from the artifact store, so that a run can be set
// against earlier runs of the same configuration.
//
// The artifact store stays the record; the database is an index of it that
// Backfill rebuilds. Two engines speak one schema: SQLite (embedded, through
// a pure-Go driver; the default) and PostgreSQL (one server for clusters
// that outgrow a file, or several managers sharing a history).
package resultsdb
