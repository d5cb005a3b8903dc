package nodefacts

import "regexp"

// Where MachineID was read (Facts.MachineIDSource).
const (
	MachineFromDMI       = "dmi"
	MachineFromMachineID = "machine-id"
)

// idPattern is what a machine or boot id looks like (a UUID, or
// machine-id's 32 hex digits): anything else is not recorded.
var idPattern = regexp.MustCompile(`^[0-9A-Fa-f-]{8,64}$`)

// IsID says whether s looks like a machine or boot id as machine records
// them: facts read back from a file may hold anything.
func IsID(s string) bool { return idPattern.MatchString(s) }

// machine reads the machine beneath the node: the DMI product UUID (the
// VM's or the server's own, readable by root only on most kernels), else
// /etc/machine-id; and the running kernel's boot id, which every container
// on the machine reads alike.
func (h Host) machine(f *Facts) {
	for _, src := range []struct{ path, name string }{
		{"sys/class/dmi/id/product_uuid", MachineFromDMI},
		{"etc/machine-id", MachineFromMachineID},
	} {
		if id := h.trimmed(src.path); idPattern.MatchString(id) {
			f.MachineID, f.MachineIDSource = id, src.name
			break
		}
	}
	if id := h.trimmed("proc/sys/kernel/random/boot_id"); idPattern.MatchString(id) {
		f.BootID = id
	}
}

// Machine names the machine the facts were read on, for telling runs that
// shared one: the machine id and the boot id together. Either alone can
// mislead: /etc/machine-id in a container is its image's, the same on every
// machine, and a boot id changes with a reboot (runs on either side of one
// never overlap). Empty when neither was read.
func (f Facts) Machine() string {
	switch {
	case f.MachineID == "" && f.BootID == "":
		return ""
	case f.MachineID == "":
		return "boot:" + f.BootID
	case f.BootID == "":
		return f.MachineIDSource + ":" + f.MachineID
	}
	return f.MachineIDSource + ":" + f.MachineID + "/boot:" + f.BootID
}
