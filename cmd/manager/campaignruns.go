package main

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/benchwright/benchwright/internal/artifactserver"
	"github.com/benchwright/benchwright/internal/campaigngc"
)

// workflowRuns reads a campaign's Argo Workflow around the cache (the chart
// grants get on Workflows in the campaigns' namespace, no list or watch).
type workflowRuns struct{ reader client.Reader }

// CampaignRun is the phase and times of the Workflow of a published campaign.
func (w workflowRuns) CampaignRun(ctx context.Context, namespace, name string) (artifactserver.CampaignRun, bool, error) {
	wf := &unstructured.Unstructured{}
	wf.SetGroupVersionKind(campaigngc.WorkflowKind)
	switch err := w.reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, wf); {
	case apierrors.IsNotFound(err):
		return artifactserver.CampaignRun{}, false, nil
	case err != nil:
		return artifactserver.CampaignRun{}, false, err
	}
	phase, _, _ := unstructured.NestedString(wf.Object, "status", "phase")
	return artifactserver.CampaignRun{Phase: phase, Started: statusTime(wf, "startedAt"), Finished: statusTime(wf, "finishedAt")}, true, nil
}

// statusTime is a time of the Workflow's status; zero when unset or unreadable.
func statusTime(wf *unstructured.Unstructured, field string) time.Time {
	s, _, _ := unstructured.NestedString(wf.Object, "status", field)
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
