package tuning

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Apply records the original value of every setting in the state file
// (before the first change, and never over an original recorded earlier),
// writes each value, reads it back and reports. Settings of an earlier run
// that are no longer asked for (or now refused) are restored first. The
// error is for a state that cannot be read or saved: nothing more is
// changed then, and what was changed is in the state file.
func Apply(h Host, sf StateFile, settings []Setting, allowUnlisted bool) (Report, error) {
	return pass(h, sf, settings, allowUnlisted, true)
}

// Check reads every setting back without writing, for the periodic reports
// that show drift.
func Check(h Host, sf StateFile, settings []Setting, allowUnlisted bool) (Report, error) {
	return pass(h, sf, settings, allowUnlisted, false)
}

// now is the reports' clock.
var now = func() time.Time { return time.Now().UTC().Truncate(time.Second) }

func errorReport(rep Report, err error) (Report, error) {
	rep.Phase, rep.Error = PhaseError, err.Error()
	return rep, err
}

// pass is one Apply (write) or Check.
func pass(h Host, sf StateFile, settings []Setting, allowUnlisted, write bool) (Report, error) {
	rep := Report{Phase: PhaseApplied, Time: now()}
	st, unlock, err := sf.open(h)
	if err != nil {
		return errorReport(rep, err)
	}
	defer unlock()
	if st == nil {
		st = &state{BootID: bootID(h)}
	}
	held, err := sf.heldByOthers(h)
	if err != nil {
		return errorReport(rep, err)
	}
	if write {
		st.Owner = sf.Owner
		if err := restoreLeftovers(h, sf, st, settings, allowUnlisted); err != nil {
			return errorReport(rep, err)
		}
	}
	for _, s := range ordered(settings) {
		if reason := refusal(s, allowUnlisted); reason != "" {
			rep.Refused = append(rep.Refused, Refusal{Name: s.Name, Reason: reason})
			continue
		}
		sr, err := one(h, sf, st, s, held[s.Name], write)
		if err != nil {
			return errorReport(rep, err)
		}
		rep.Settings = append(rep.Settings, sr)
	}
	rep.Tuned = len(rep.Refused) == 0
	for _, sr := range rep.Settings {
		rep.Tuned = rep.Tuned && sr.OK
	}
	return rep, nil
}

// refusal is why a setting is not even tried: invalid, or not allowed.
func refusal(s Setting, allowUnlisted bool) string {
	if err := Validate(s); err != nil {
		return err.Error()
	}
	if fromPreset(s) && !HardDenied(s.Name) {
		return ""
	}
	return refuse(s.Name, allowUnlisted)
}

// one applies (or checks) one setting. Its error is a state that cannot be
// saved: the caller stops before changing anything more.
func one(h Host, sf StateFile, st *state, s Setting, heldBy string, write bool) (SettingReport, error) {
	sr := SettingReport{Name: s.Name, Requested: s.Value}
	if heldBy != "" {
		sr.Error = fmt.Sprintf("TuningProfile %s sets it on this node too: each would restore the other's value", heldBy)
		return sr, nil
	}
	targets, err := h.targets(s.Name)
	if errors.Is(err, errMissing) && s.Source != SourceSpec {
		// A preset's key this node lacks is skipped, as tuned does.
		sr.OK, sr.Skipped, sr.Error = true, true, err.Error()
		return sr, nil
	}
	if err != nil {
		sr.Error = err.Error()
		return sr, nil
	}
	originals := map[string]string{}
	for _, t := range targets {
		v, ok := st.original(s.Name, t.unit)
		if !ok && write {
			if v, err = read(s.Name, t.path); err != nil {
				sr.Error = err.Error()
				return sr, nil
			}
			st.Originals = append(st.Originals, Original{Name: s.Name, Unit: t.unit, Value: v})
			ok = true
		}
		if ok {
			originals[t.unit] = v
		}
	}
	if write {
		// The originals are on disk before the first write.
		if err := sf.save(st); err != nil {
			return sr, err
		}
		stopPoint(stopOriginalsSaved)
	}
	observed := map[string]string{}
	var errs []string
	refused := map[string][]string{} // why a maximum frequency is not written -> CPUs
	for _, t := range targets {
		set := write
		if s.Name == MaxFrequency {
			if why := h.outOfRange(t.unit, s.Value); why != "" {
				refused[why] = append(refused[why], t.unit)
				set = false
			}
		}
		v, err := setOne(s.Name, t.path, s.Value, set)
		if err != nil {
			errs = append(errs, err.Error())
		}
		observed[t.unit] = v
	}
	errs = append(errs, outOfRangeErrors(refused)...)
	sr.Observed, sr.Original = join(observed), join(originals)
	sr.Error = strings.Join(errs, "; ")
	sr.OK = sr.Error == ""
	for _, v := range observed {
		sr.OK = sr.OK && satisfied(s.Name, v, s.Value)
	}
	return sr, nil
}

// setOne writes a value unless it is there already (or set is false), and
// returns what reads back.
func setOne(name, path, value string, set bool) (string, error) {
	cur, err := read(name, path)
	if err != nil || !set || satisfied(name, cur, value) {
		return cur, err
	}
	werr := write(path, fileValue(name, path, value))
	if cur, err = read(name, path); err != nil {
		return cur, err
	}
	return cur, werr
}

// outOfRangeErrors are the refused maximum frequencies, one message per reason.
func outOfRangeErrors(refused map[string][]string) []string {
	var out []string
	for why, cpus := range refused {
		out = append(out, fmt.Sprintf("%s: %s on %d CPU(s) (%s): not written, the kernel would clamp it", MaxFrequency, why, len(cpus), shortList(cpus)))
	}
	sort.Strings(out)
	return out
}

// shortList names a few units, and how many more there are.
func shortList(units []string) string {
	if len(units) <= 4 {
		return strings.Join(units, ", ")
	}
	return fmt.Sprintf("%s, ... %s", strings.Join(units[:3], ", "), units[len(units)-1])
}

// ordered is the order settings are applied in: SMT first (it takes CPUs
// offline), then the governor, boost and maximum frequency of the CPUs still
// online, THP, the sysctls.
func ordered(settings []Setting) []Setting {
	rank := map[string]int{SMT: -5, Governor: -4, Boost: -3, MaxFrequency: -2, THP: -1} // sysctls: 0
	out := append([]Setting(nil), settings...)
	sort.SliceStable(out, func(i, j int) bool { return rank[out[i].Name] < rank[out[j].Name] })
	return out
}

// join is one value for a setting's files: the value when all agree, else
// "cpu0=performance cpu1=powersave".
func join(byUnit map[string]string) string {
	if len(byUnit) == 0 {
		return ""
	}
	units := make([]string, 0, len(byUnit))
	distinct := map[string]bool{}
	for u, v := range byUnit {
		units = append(units, u)
		distinct[v] = true
	}
	if len(distinct) == 1 {
		return byUnit[units[0]]
	}
	sort.Slice(units, func(i, j int) bool { return cpuNumber(units[i]) < cpuNumber(units[j]) })
	parts := make([]string, len(units))
	for i, u := range units {
		parts[i] = u + "=" + byUnit[u]
	}
	return strings.Join(parts, " ")
}
