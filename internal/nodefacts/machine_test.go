package nodefacts

import "testing"

func TestReadMachine(t *testing.T) {
	const (
		uuid = "4c4c4544-0042-3510-8052-b4c04f384d32"
		mid  = "7d1c2a9e0b3f4f6c9a2e5d8b1c3f4a6e"
		boot = "0f3c6a7e-91b2-4c1d-8e5f-2a3b4c5d6e7f"
	)
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  Facts
		key   string
	}{
		{"dmi", map[string]string{"sys/class/dmi/id/product_uuid": uuid + "\n", "etc/machine-id": mid + "\n", "proc/sys/kernel/random/boot_id": boot + "\n"},
			Facts{MachineID: uuid, MachineIDSource: MachineFromDMI, BootID: boot}, "dmi:" + uuid + "/boot:" + boot},
		{"machine-id without dmi", map[string]string{"etc/machine-id": mid + "\n", "proc/sys/kernel/random/boot_id": boot + "\n"},
			Facts{MachineID: mid, MachineIDSource: MachineFromMachineID, BootID: boot}, "machine-id:" + mid + "/boot:" + boot},
		{"an empty machine-id (a container image's)", map[string]string{"etc/machine-id": "\n", "proc/sys/kernel/random/boot_id": boot + "\n"},
			Facts{BootID: boot}, "boot:" + boot},
		{"garbage is not an id", map[string]string{"sys/class/dmi/id/product_uuid": "Not Settable\n"}, Facts{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := layout(t, tc.files).Read([]int{0})
			if f.MachineID != tc.want.MachineID || f.MachineIDSource != tc.want.MachineIDSource || f.BootID != tc.want.BootID {
				t.Errorf("read %q %q %q, want %q %q %q", f.MachineID, f.MachineIDSource, f.BootID, tc.want.MachineID, tc.want.MachineIDSource, tc.want.BootID)
			}
			if k := f.Machine(); k != tc.key {
				t.Errorf("Machine() = %q, want %q", k, tc.key)
			}
		})
	}
}

// The facts line carries the machine, and is read back.
func TestLineCarriesMachine(t *testing.T) {
	f := Facts{MachineID: "4c4c4544-0042-3510-8052-b4c04f384d32", MachineIDSource: MachineFromDMI, BootID: "0f3c6a7e-91b2-4c1d-8e5f-2a3b4c5d6e7f"}
	g, err := ParseLine([]byte(Line(f) + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if g.Machine() != f.Machine() || len(Line(f)) > MaxMessage {
		t.Errorf("read back %q, want %q (line of %d bytes)", g.Machine(), f.Machine(), len(Line(f)))
	}
}
