// Package runstore keeps one benchmark run's files in the artifact store:
// the pods' raw logs, the samples (labelled with where they come from:
// Origin) and their summaries, the nodes they were measured on (described
// with the settings the run had: DescribeNode), and report.html.
package runstore
