package children

import (
	"context"
	"sort"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/outcome"
)

// SlotLabel holds the node slot of a Job of a benchmark that runs one Job per
// node and repetition.
const SlotLabel = "benchwright.io/slot"

// SlotJobs are a benchmark's Jobs, one per repetition, attempt and node
// slot, and their pods.
type SlotJobs struct {
	Jobs []*batchv1.Job
	Pods []*corev1.Pod
}

// ListSlotJobs reads the Jobs and pods that carry labels and keeps those
// owner owns (a pod belongs to it through its Job).
func ListSlotJobs(ctx context.Context, c client.Reader, owner client.Object, labels map[string]string) (*SlotJobs, error) {
	sel := client.MatchingLabels(labels)
	ns := client.InNamespace(owner.GetNamespace())
	var jobs batchv1.JobList
	if err := c.List(ctx, &jobs, ns, sel); err != nil {
		return nil, err
	}
	var pods corev1.PodList
	if err := c.List(ctx, &pods, ns, sel); err != nil {
		return nil, err
	}
	st := &SlotJobs{}
	uids := map[string]bool{}
	for i := range jobs.Items {
		if j := &jobs.Items[i]; OwnedBy(j, owner) {
			st.Jobs = append(st.Jobs, j)
			uids[string(j.UID)] = true
		}
	}
	for i := range pods.Items {
		if ref := metav1.GetControllerOf(&pods.Items[i]); ref != nil && uids[string(ref.UID)] {
			st.Pods = append(st.Pods, &pods.Items[i])
		}
	}
	return st, nil
}

// Current is the latest attempt of a repetition (-1 when none exists) and
// the node slots of that attempt.
func (c *SlotJobs) Current(rep int) (int, []SlotRun) {
	attempt := -1
	for _, j := range c.Jobs {
		if LabelInt(j, benchv1.RepetitionLabel) == rep {
			attempt = max(attempt, LabelInt(j, AttemptLabel))
		}
	}
	if attempt < 0 {
		return -1, nil
	}
	var slots []SlotRun
	for _, j := range c.JobsOf(rep, attempt) {
		s := SlotRun{Job: j}
		for _, p := range c.Pods {
			if ref := metav1.GetControllerOf(p); ref != nil && ref.UID == j.UID {
				s.Pods = append(s.Pods, p)
			}
		}
		slots = append(slots, s)
	}
	return attempt, slots
}

// JobsOf are the Jobs of one attempt, by slot.
func (c *SlotJobs) JobsOf(rep, attempt int) []*batchv1.Job {
	var out []*batchv1.Job
	for _, j := range c.Jobs {
		if LabelInt(j, benchv1.RepetitionLabel) == rep && LabelInt(j, AttemptLabel) == attempt {
			out = append(out, j)
		}
	}
	sort.Slice(out, func(a, b int) bool {
		return LabelInt(out[a], SlotLabel) < LabelInt(out[b], SlotLabel)
	})
	return out
}

// CompletedAt is when the Job of a finished pod completed.
func (c *SlotJobs) CompletedAt(p *corev1.Pod) time.Time {
	ref := metav1.GetControllerOf(p)
	for _, j := range c.Jobs {
		if ref != nil && j.UID == ref.UID && j.Status.CompletionTime != nil {
			return j.Status.CompletionTime.Time
		}
	}
	return time.Time{}
}

// DeleteActiveJobs stops Jobs that still run, with their pods.
func DeleteActiveJobs(ctx context.Context, c client.Writer, jobs []*batchv1.Job) error {
	for _, j := range jobs {
		if JobCondition(j, batchv1.JobComplete) || JobCondition(j, batchv1.JobFailed) {
			continue
		}
		err := c.Delete(ctx, j, client.PropagationPolicy(metav1.DeletePropagationBackground))
		if client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	return nil
}

// ConfirmLost re-observes an attempt that looks lost, reading its Jobs and
// pods around the cache: a loss costs a retry, and the cache can hold a
// Job's completion before its pod's. It returns what to act on.
func ConfirmLost(ctx context.Context, c client.Reader, owner client.Object, labels map[string]string,
	rep, attempt int, slots []SlotRun, obs Observation) ([]SlotRun, Observation, error) {
	if obs.Phase != PhaseLost {
		return slots, obs, nil
	}
	fresh, err := ListSlotJobs(ctx, c, owner, labels)
	if err != nil {
		return nil, obs, err
	}
	if a, s := fresh.Current(rep); a == attempt && len(s) == len(slots) {
		return s, ObserveSlots(s), nil
	}
	return slots, obs, nil
}

// SlotAttempt is the latest attempt of a repetition over its node slots:
// where it stands for the state machine, and its slots and what they say,
// for the driver.
type SlotAttempt struct {
	Attempt
	Slots       []SlotRun
	Observation Observation
}

// Observe says where the latest attempt of repetition rep stands over its
// nodes slots; a loss is confirmed by reading around the cache (fresh),
// which lists the Jobs of owner by labels again.
func (c *SlotJobs) Observe(ctx context.Context, fresh client.Reader, owner client.Object, labels map[string]string, rep, nodes int) (SlotAttempt, error) {
	attempt, slots := c.Current(rep)
	sa := SlotAttempt{Attempt: Attempt{Rep: rep, Number: attempt, Retries: Retries(c.Jobs)}, Slots: slots}
	if attempt < 0 || len(slots) < nodes {
		sa.Partial = true // none yet, or Jobs only partly created
		return sa, nil
	}
	slots, obs, err := ConfirmLost(ctx, fresh, owner, labels, rep, attempt, slots, ObserveSlots(slots))
	if err != nil {
		return sa, err
	}
	sa.Slots, sa.Observation = slots, obs
	sa.Phase, sa.Created, sa.Started, sa.Why, sa.Unmade, sa.GoneJob = obs.Phase, obs.Created, obs.Started, obs.Why, obs.Unmade, obs.GoneJob
	if obs.Phase == PhaseDeadline {
		sa.Why = "exceeded the Job's deadline: " + obs.Why
	}
	return sa, nil
}

// CreateSlotJobs creates the Jobs of one attempt, one per node slot, that do
// not exist yet, and returns those it created. construct builds a slot's Job;
// its error is the spec's fault (an InvalidSpec Outcome).
func (k Kit) CreateSlotJobs(ctx context.Context, owner client.Object, slots int, construct func(slot int) (*batchv1.Job, error)) ([]client.Object, error) {
	var created []client.Object
	for slot := range slots {
		job, err := construct(slot)
		if err != nil {
			return created, outcome.Fail(benchv1.ReasonInvalidSpec, err.Error())
		}
		ok, err := k.CreateOwned(ctx, owner, job)
		if err != nil {
			return created, err
		}
		if ok {
			created = append(created, job)
		}
	}
	return created, nil
}
