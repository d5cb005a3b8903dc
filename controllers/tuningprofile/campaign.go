package tuningprofile

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// outsideCampaign says why a campaign's profile may not tune its pool, or ""
// when it may. A profile labelled with a campaign tunes only a BenchmarkPool
// of the same campaign: the campaign's admission policy makes it name a pool
// after itself, and this keeps it off another team's pool of that name.
func (r *Reconciler) outsideCampaign(ctx context.Context, p *benchv1.TuningProfile) (string, error) {
	campaign, ok := p.Labels[benchv1.CampaignLabel]
	if !ok || p.Spec.Pool == "" {
		return "", nil
	}
	var pool benchv1.BenchmarkPool
	if err := r.Get(ctx, client.ObjectKey{Name: string(p.Spec.Pool)}, &pool); apierrors.IsNotFound(err) {
		return fmt.Sprintf("waiting for BenchmarkPool %s of campaign %s: it does not exist yet", p.Spec.Pool, campaign), nil
	} else if err != nil {
		return "", err
	}
	if got, has := pool.Labels[benchv1.CampaignLabel]; !has || got != campaign {
		owner := "no campaign"
		if has {
			owner = "campaign " + got
		}
		return fmt.Sprintf("BenchmarkPool %s belongs to %s: a profile of campaign %s tunes only pools labelled %s=%s",
			p.Spec.Pool, owner, campaign, benchv1.CampaignLabel, campaign), nil
	}
	return "", nil
}
