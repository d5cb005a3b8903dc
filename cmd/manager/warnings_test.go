package main

import (
	"context"
	"testing"
)

type recordWarnings []string

func (r *recordWarnings) HandleWarningHeaderWithContext(_ context.Context, _ int, _, text string) {
	*r = append(*r, text)
}

func TestAPIWarningsDropOnlyTheNullCreationTimestamp(t *testing.T) {
	var got recordWarnings
	w := &apiWarnings{next: &got}
	for _, text := range []string{
		`unknown field "spec.mpiReplicaSpecs.Launcher.template.metadata.creationTimestamp"`,
		`unknown field "spec.mpiReplicaSpecs.Worker.template.metadata.creationTimestamp"`,
		`unknown field "spec.mpiReplicaSpecs.Worker.template.spec.extra"`,
		`batch/v1 CronJob is deprecated`,
	} {
		w.HandleWarningHeaderWithContext(context.Background(), 299, "", text)
	}
	if len(got) != 2 || got[0] != `unknown field "spec.mpiReplicaSpecs.Worker.template.spec.extra"` {
		t.Fatalf("passed on %q, want the other two warnings only", got)
	}
}
