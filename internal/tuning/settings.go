package tuning

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// Names of the settings that are not sysctls.
const (
	// Governor is the cpufreq scaling governor of every online CPU.
	Governor = "cpu.governor"
	// SMT is /sys/devices/system/cpu/smt/control.
	SMT = "cpu.smt"
	// MaxFrequency is every online CPU's cpufreq/scaling_max_freq, in kHz.
	MaxFrequency = "cpu.max_freq_khz"
	// Boost is turbo on or off: cpufreq/boost, or intel_pstate/no_turbo inverted.
	Boost = "cpu.boost"
	// THP is /sys/kernel/mm/transparent_hugepage/enabled.
	THP = "transparent_hugepage"
)

// SourceSpec marks a value the profile's spec asks for itself.
const SourceSpec = "spec"

// Setting is one value to set on a node and where it comes from.
type Setting struct {
	// Name is a sysctl in dotted form, or Governor, SMT, MaxFrequency, Boost, THP.
	Name string `json:"name"`
	// Value as written; several numbers are separated by spaces.
	Value string `json:"value"`
	// Source is "spec" or the preset and the file the value is taken from.
	Source string `json:"source,omitempty"`
}

// Config is what the controller gives the tuner (settings.json in the
// tuner's ConfigMap).
type Config struct {
	// Profile and Generation name the TuningProfile the settings belong to.
	Profile    string `json:"profile"`
	Generation int64  `json:"generation"`
	// AllowUnlistedSysctls lets sysctls outside the allow-list through.
	AllowUnlistedSysctls bool      `json:"allowUnlistedSysctls,omitempty"`
	Settings             []Setting `json:"settings"`
	// Restore is set once the profile is deleted: the tuner applies nothing,
	// restores what the profile's earlier tuners left on the node and
	// reports "restored", which the controller waits for.
	Restore bool `json:"restore,omitempty"`
}

var (
	// sysctlName is the CRD's rule: dotted lower-case words, no '/'.
	sysctlName = regexp.MustCompile(`^[a-z0-9_]+(\.[a-z0-9_-]+)+$`)
	// sysctlValue is the CRD's rule: no newlines, tabs or shell characters.
	sysctlValue = regexp.MustCompile(`^[A-Za-z0-9_ .:,/+-]+$`)
)

// maxValue is the CRD's bound on a sysctl value.
const maxValue = 256

// choices are the values the non-sysctl settings accept.
var choices = map[string][]string{
	Governor: {"performance", "powersave", "ondemand", "schedutil", "conservative"},
	SMT:      {"on", "off"},
	Boost:    {"on", "off"},
	THP:      {"always", "madvise", "never"},
}

// ownSetting tells whether a name is one of the settings that are not sysctls.
func ownSetting(name string) bool { return choices[name] != nil || name == MaxFrequency }

// frequencyKHz bounds a maximum frequency: 1 MHz to 100 GHz.
const minFrequencyKHz, maxFrequencyKHz = 1_000, 100_000_000

var frequencyPattern = regexp.MustCompile(`^([0-9]+)(?:[.]([0-9]+))?(GHz|MHz|kHz)$`)

// ParseFrequency is a frequency such as "2.2GHz", "2200MHz" or "2200000kHz" in
// kHz, the unit of cpufreq's files. It must be a whole number of kHz between
// 1 MHz and 100 GHz.
func ParseFrequency(s string) (int64, error) {
	m := frequencyPattern.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("maxFrequency %q is not a number with the unit GHz, MHz or kHz, e.g. 2.2GHz or 2200MHz", s)
	}
	digits := map[string]int{"GHz": 6, "MHz": 3, "kHz": 0}[m[3]] // decimal places of kHz in one unit
	frac := strings.TrimRight(m[2], "0")
	if len(frac) > digits {
		return 0, fmt.Errorf("maxFrequency %q is not a whole number of kHz, the unit the kernel takes", s)
	}
	whole := strings.TrimLeft(m[1], "0") + frac + strings.Repeat("0", digits-len(frac))
	if len(whole) > 12 {
		return 0, fmt.Errorf("maxFrequency %q is above 100 GHz", s)
	}
	khz, err := strconv.ParseInt(cmp.Or(strings.TrimLeft(whole, "0"), "0"), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("maxFrequency %q: %w", s, err)
	}
	if khz < minFrequencyKHz || khz > maxFrequencyKHz {
		return 0, fmt.Errorf("maxFrequency %q is %d kHz: it must be between 1 MHz and 100 GHz", s, khz)
	}
	return khz, nil
}

// Validate checks a setting's name and value: a name maps to a file, so
// nothing but a well-formed sysctl or one of Governor, SMT, THP gets through.
func Validate(s Setting) error {
	if s.Name == MaxFrequency {
		khz, err := strconv.ParseInt(s.Value, 10, 64)
		if err != nil || khz < minFrequencyKHz || khz > maxFrequencyKHz || strconv.FormatInt(khz, 10) != s.Value {
			return fmt.Errorf("%s: %q is not a frequency in kHz between %d and %d", s.Name, s.Value, minFrequencyKHz, maxFrequencyKHz)
		}
		return nil
	}
	if allowed, ok := choices[s.Name]; ok {
		if slices.Contains(allowed, s.Value) {
			return nil
		}
		return fmt.Errorf("%s: %q is not one of %s", s.Name, s.Value, strings.Join(allowed, ", "))
	}
	if !sysctlName.MatchString(s.Name) || len(s.Name) > 128 {
		return fmt.Errorf("%q is not a sysctl name: dotted lower-case words such as net.core.busy_poll", s.Name)
	}
	if strings.HasPrefix(s.Name, "cpu.") {
		return fmt.Errorf("%s: cpu.* names are reserved for spec.cpu (governor, smt, maxFrequency, boost)", s.Name)
	}
	if len(s.Value) > maxValue || !sysctlValue.MatchString(s.Value) {
		return fmt.Errorf("%s: value %q must be numbers or words separated by spaces (at most %d characters)", s.Name, s.Value, maxValue)
	}
	return nil
}

// Expand turns a profile's spec into explicit settings, sorted by name: the
// preset's values with their provenance, overridden by the spec's sysctls,
// cpu and transparentHugepages.
func Expand(spec *benchv1.TuningProfileSpec) ([]Setting, error) {
	byName := map[string]Setting{}
	if spec.Preset != "" {
		p, ok := presets[spec.Preset]
		if !ok {
			return nil, fmt.Errorf("unknown preset %q", spec.Preset)
		}
		for _, s := range p.settings() {
			byName[s.Name] = s
		}
	}
	var errs []error
	seen := map[string]bool{}
	for _, sc := range spec.Sysctls {
		if seen[sc.Name] {
			errs = append(errs, fmt.Errorf("sysctl %s is listed twice", sc.Name))
		}
		seen[sc.Name] = true
		if ownSetting(sc.Name) {
			errs = append(errs, fmt.Errorf("%s is not a sysctl: use spec.cpu or spec.transparentHugepages", sc.Name))
			continue
		}
		byName[sc.Name] = Setting{Name: sc.Name, Value: sc.Value, Source: SourceSpec}
	}
	if c := spec.CPU; c != nil {
		if c.Governor != "" {
			byName[Governor] = Setting{Name: Governor, Value: c.Governor, Source: SourceSpec}
		}
		if c.SMT != "" {
			byName[SMT] = Setting{Name: SMT, Value: c.SMT, Source: SourceSpec}
		}
		if c.MaxFrequency != "" {
			khz, err := ParseFrequency(c.MaxFrequency)
			if err != nil {
				errs = append(errs, err)
			} else {
				byName[MaxFrequency] = Setting{Name: MaxFrequency, Value: strconv.FormatInt(khz, 10), Source: SourceSpec}
			}
		}
		if c.Boost != "" {
			byName[Boost] = Setting{Name: Boost, Value: c.Boost, Source: SourceSpec}
		}
	}
	if spec.TransparentHugepages != "" {
		byName[THP] = Setting{Name: THP, Value: spec.TransparentHugepages, Source: SourceSpec}
	}
	out := make([]Setting, 0, len(byName))
	for _, s := range byName {
		if err := Validate(s); err != nil {
			errs = append(errs, err)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		errs = append(errs, errors.New("the profile sets nothing"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
