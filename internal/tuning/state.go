package tuning

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
)

// StateFile keeps one profile's original values on the node (a hostPath, so
// that it outlives the tuner's pod).
type StateFile struct {
	// Path is the JSON file, <state dir>/<profile>.json. The other profiles'
	// files in the same directory are how the tuner finds keys they hold.
	Path string
	// Owner identifies this tuner process. Apply takes the state over;
	// Restore undoes only a state this owner holds, so a pod that stops late
	// never undoes the work of the pod that replaced it.
	Owner string
}

// Original is a value as it was before the first change.
type Original struct {
	Name string `json:"name"`
	// Unit is the CPU of a per-CPU setting ("cpu3"), or Boost's driver.
	Unit  string `json:"unit,omitempty"`
	Value string `json:"value"`
}

// state is the file's content. Originals are in the order they were changed.
type state struct {
	Owner string `json:"owner"`
	// BootID tells a state of an earlier boot: every value is back to its
	// boot default then, and the recorded originals are no longer the truth.
	BootID    string     `json:"bootID,omitempty"`
	Originals []Original `json:"originals"`
}

func (st *state) original(name, unit string) (string, bool) {
	for _, o := range st.Originals {
		if o.Name == name && o.Unit == unit {
			return o.Value, true
		}
	}
	return "", false
}

// bootID is the kernel's boot id ("" where there is none, as in a test's
// directory).
func bootID(h Host) string {
	b, err := os.ReadFile(filepath.Join(h.procSys(), "kernel/random/boot_id"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// load reads the state; nil when there is none or it is from an earlier boot.
func (s StateFile) load(h Host) (*state, error) {
	b, err := os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var st state
	if err := json.Unmarshal(b, &st); err != nil {
		// Written atomically, so never half a file: something else wrote it.
		return nil, fmt.Errorf("state file %s is not the tuner's: %w", s.Path, err)
	}
	if st.BootID != bootID(h) {
		return nil, nil
	}
	// Names and units become paths: a file someone else edited must not
	// point the restore anywhere but at a setting.
	for _, o := range st.Originals {
		if err := checkOriginal(o); err != nil {
			return nil, fmt.Errorf("state file %s: %w", s.Path, err)
		}
	}
	return &st, nil
}

// cpuUnit is a per-CPU setting's unit: a CPU directory of sysfs.
var cpuUnit = regexp.MustCompile(`^cpu[0-9]{1,4}$`)

// checkOriginal checks a recorded setting as Validate checks a requested one.
func checkOriginal(o Original) error {
	switch {
	case o.Name == Governor || o.Name == MaxFrequency:
		if !cpuUnit.MatchString(o.Unit) {
			return fmt.Errorf("%s has unit %q, not a CPU such as cpu3", o.Name, o.Unit)
		}
		return nil
	case o.Name == Boost:
		if o.Unit != boostCPUFreq && o.Unit != boostIntelPState {
			return fmt.Errorf("%s has unit %q, not %s or %s", o.Name, o.Unit, boostCPUFreq, boostIntelPState)
		}
		return nil
	case o.Unit != "":
		return fmt.Errorf("%s has unit %q: only %s, %s and %s have one", o.Name, o.Unit, Governor, MaxFrequency, Boost)
	case o.Name == SMT || o.Name == THP:
		return nil
	case !sysctlName.MatchString(o.Name) || len(o.Name) > 128 || strings.HasPrefix(o.Name, "cpu."):
		return fmt.Errorf("%q is not a sysctl name", o.Name)
	}
	return nil
}

// save replaces the state file atomically: a new file, synced, renamed over.
func (s StateFile) save(st *state) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.Path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(s.Path)+".*")
	if err != nil {
		return fmt.Errorf("saving the originals: %w", err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if _, err := tmp.Write(b); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("saving the originals: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("saving the originals: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("saving the originals: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.Path); err != nil {
		return fmt.Errorf("saving the originals: %w", err)
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer func() { _ = d.Close() }()
	return d.Sync()
}

// remove deletes the state once every original is back.
func (s StateFile) remove() error {
	if err := os.Remove(s.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return syncDir(filepath.Dir(s.Path))
}

// heldByOthers maps each setting another profile's state holds on this node
// to that profile.
func (s StateFile) heldByOthers(h Host) (map[string]string, error) {
	files, err := filepath.Glob(filepath.Join(filepath.Dir(s.Path), "*.json"))
	if err != nil {
		return nil, err
	}
	held := map[string]string{}
	for _, f := range files {
		if f == s.Path {
			continue
		}
		other := StateFile{Path: f}
		st, err := other.load(h)
		if err != nil {
			return nil, err
		}
		if st == nil {
			continue
		}
		for _, o := range st.Originals {
			held[o.Name] = strings.TrimSuffix(filepath.Base(f), ".json")
		}
	}
	return held, nil
}

// lock serialises the tuners of one node (one per profile, and an old and a
// new pod of one profile during a rollout) over the state directory.
func (s StateFile) lock() (unlock func(), err error) {
	dir := filepath.Dir(s.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("locking %s: %w", dir, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}

// open locks the state directory and loads the state (nil when there is
// none); unlock ends the lock.
func (s StateFile) open(h Host) (st *state, unlock func(), err error) {
	if unlock, err = s.lock(); err != nil {
		return nil, nil, err
	}
	if st, err = s.load(h); err != nil {
		unlock()
		return nil, nil, err
	}
	return st, unlock, nil
}
