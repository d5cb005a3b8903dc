package artifactserver

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/benchwright/benchwright/internal/artifacts"
)

// CampaignRun is how a campaign's Workflow stands.
type CampaignRun struct {
	// Phase is the Workflow's: Pending, Running, Succeeded, Failed or Error.
	Phase string
	// Started and Finished are its times (zero when not yet, or unknown).
	Started, Finished time.Time
}

// CampaignRuns looks campaigns up by their Workflow (see WithCampaignRuns).
type CampaignRuns interface {
	// CampaignRun is the Workflow named name in namespace; ok is false
	// when it is gone.
	CampaignRun(ctx context.Context, namespace, name string) (run CampaignRun, ok bool, err error)
}

// ModTimer tells when an object of the store was last written.
type ModTimer interface {
	ModTime(ctx context.Context, key string) (time.Time, error)
}

// WithCampaignRuns makes the index show each campaign's state from its
// Workflow, and returns h.
func (h *Handler) WithCampaignRuns(r CampaignRuns) *Handler {
	h.campaignRuns = r
	return h
}

// campaignRow is a campaign of the index with its state and date.
type campaignRow struct {
	campaign
	// State is its Workflow's phase, or why it is not known.
	State string
	// Failed marks a campaign whose Workflow Failed or ended in Error.
	Failed bool
	// Date is when the campaign started, else when its report was
	// published; Dated says which.
	Date  time.Time
	Dated string
}

// When is the campaign's date as the index shows it.
func (c campaignRow) When() string { return stamp(c.Date) }

// describeCampaigns gives each campaign its state and date, newest first
// (then by namespace and name). A lookup that fails leaves the state
// unknown and is logged: the index is still served.
func (h *Handler) describeCampaigns(ctx context.Context, camps []campaign) []campaignRow {
	rows := make([]campaignRow, len(camps))
	for i, c := range camps {
		rows[i] = h.describeCampaign(ctx, c)
	}
	slices.SortStableFunc(rows, func(a, b campaignRow) int {
		return cmp.Or(b.Date.Compare(a.Date), strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	return rows
}

func (h *Handler) describeCampaign(ctx context.Context, c campaign) campaignRow {
	row := campaignRow{campaign: c, State: "unknown"}
	if h.campaignRuns != nil {
		run, ok, err := h.campaignRuns.CampaignRun(ctx, c.Namespace, c.Name)
		switch {
		case err != nil:
			h.log.Error(err, "looking up a campaign's Workflow", "namespace", c.Namespace, "campaign", c.Name)
		case !ok:
			row.State = "Workflow deleted"
		default:
			row.State = cmp.Or(run.Phase, "Pending")
			row.Failed = run.Phase == "Failed" || run.Phase == "Error"
			row.Date, row.Dated = run.Started, "started"
		}
	}
	if row.Date.IsZero() {
		row.Date, row.Dated = h.published(ctx, c), "published"
	}
	return row
}

// published is when the campaign's report was last written; zero when the
// store cannot tell.
func (h *Handler) published(ctx context.Context, c campaign) time.Time {
	mt, ok := h.store.(ModTimer)
	if !ok || len(c.Formats) == 0 {
		return time.Time{}
	}
	key, err := artifacts.CampaignReport(c.Namespace, c.Name, c.Formats[0].Name)
	if err != nil {
		return time.Time{}
	}
	t, err := mt.ModTime(ctx, key)
	if err != nil {
		h.log.Error(err, "reading when a campaign's report was published", "key", key)
	}
	return t
}
