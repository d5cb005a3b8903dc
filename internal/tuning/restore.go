package tuning

import (
	"fmt"
	"strings"
)

// Restore writes every original of the state back, in reverse order, reads
// each back, and removes the state file once all of them are back. A state
// that another owner has taken over is left to it.
func Restore(h Host, sf StateFile) (Report, error) {
	rep := Report{Phase: PhaseRestored, Time: now()}
	st, unlock, err := sf.open(h)
	if err != nil {
		return errorReport(rep, err)
	}
	defer unlock()
	if st == nil {
		return rep, nil // nothing was changed, or it is restored already
	}
	if sf.Owner != "" && st.Owner != sf.Owner {
		rep.Error = fmt.Sprintf("the originals were taken over by tuner %s, which restores them", st.Owner)
		return rep, nil
	}
	var left []Original
	rep.Settings, left = restore(h, st.Originals)
	if len(left) > 0 {
		st.Originals = left
		rep.Phase = PhaseError
		rep.Error = fmt.Sprintf("%d original value(s) could not be restored; they stay in %s", len(left), sf.Path)
		return rep, sf.save(st)
	}
	return rep, sf.remove()
}

// restoreLeftovers restores what an earlier run set and this one no longer
// asks for (a crashed tuner of an older generation), keeping what fails.
func restoreLeftovers(h Host, sf StateFile, st *state, settings []Setting, allowUnlisted bool) error {
	wanted := map[string]bool{}
	for _, s := range settings {
		if refusal(s, allowUnlisted) == "" {
			wanted[s.Name] = true
		}
	}
	var keep, stale []Original
	for _, o := range st.Originals {
		if wanted[o.Name] {
			keep = append(keep, o)
		} else {
			stale = append(stale, o)
		}
	}
	if len(stale) == 0 {
		return nil
	}
	_, left := restore(h, stale)
	keep = append(keep, left...)
	st.Originals = keep
	return sf.save(st)
}

// restore writes originals back in reverse order and reports per setting;
// it returns the originals that did not come back.
func restore(h Host, originals []Original) ([]SettingReport, []Original) {
	byName := map[string]*SettingReport{}
	var names []string
	want, got := map[string]map[string]string{}, map[string]map[string]string{}
	var left []Original
	for i := len(originals) - 1; i >= 0; i-- {
		o := originals[i]
		sr := byName[o.Name]
		if sr == nil {
			sr = &SettingReport{Name: o.Name, OK: true}
			byName[o.Name] = sr
			names = append(names, o.Name)
			want[o.Name], got[o.Name] = map[string]string{}, map[string]string{}
		}
		cur, err := setOne(o.Name, h.path(o.Name, o.Unit), o.Value, true)
		stopPoint(stopRestored)
		want[o.Name][o.Unit], got[o.Name][o.Unit] = o.Value, cur
		if err != nil || !same(cur, o.Value) {
			sr.OK = false
			if err != nil {
				sr.Error = strings.TrimPrefix(sr.Error+"; "+err.Error(), "; ")
			}
			left = append([]Original{o}, left...)
		}
	}
	out := make([]SettingReport, 0, len(names))
	for _, n := range names {
		sr := byName[n]
		sr.Requested, sr.Original, sr.Observed = join(want[n]), join(want[n]), join(got[n])
		out = append(out, *sr)
	}
	return out, left
}
