package sampler

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// VolumeDevices names the disk behind each path: the mount that holds it
// (the longest mount point that is a prefix of it, in /proc/self/mountinfo),
// its device number, and that number's whole disk in /sys/dev/block. A
// path on a filesystem without a block device (tmpfs, overlay of the
// container, a network filesystem) says so instead.
func (s Source) VolumeDevices(paths []string) map[string]string {
	out := map[string]string{}
	data, err := readBounded(s.path("proc/self/mountinfo"))
	if err != nil {
		for _, p := range paths {
			out[p] = "unknown: " + err.Error()
		}
		return out
	}
	for _, p := range paths {
		out[p] = s.volumeDevice(data, filepath.Clean(p))
	}
	return out
}

func (s Source) volumeDevice(mountinfo []byte, path string) string {
	best, dev, fstype, source := "", "", "", ""
	for line := range bytes.Lines(mountinfo) {
		// id parent major:minor root mountpoint options... - fstype source superoptions
		pre, post, ok := strings.Cut(strings.TrimSpace(string(line)), " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 2 {
			continue
		}
		mp := unescapeMount(f[4])
		if !underMount(path, mp) || len(mp) < len(best) {
			continue
		}
		best, dev, fstype, source = mp, f[2], g[0], g[1]
	}
	if best == "" {
		return "unknown: no mount holds " + path
	}
	if strings.HasPrefix(dev, "0:") {
		return fmt.Sprintf("none: %s %s", fstype, source)
	}
	link, err := os.Readlink(s.path("sys/dev/block/" + dev))
	if err != nil {
		return fmt.Sprintf("unknown: device %s (%s): %v", dev, fstype, err)
	}
	name := filepath.Base(link)
	if _, err := os.Stat(s.path("sys/dev/block/" + dev + "/partition")); err == nil {
		name = filepath.Base(filepath.Dir(link))
	}
	if !validName(name) {
		return "unknown: device " + dev
	}
	return name
}

// underMount tells whether path is mp or under it.
func underMount(path, mp string) bool {
	return path == mp || mp == "/" || strings.HasPrefix(path, mp+"/")
}

// unescapeMount undoes mountinfo's octal escapes of space, tab, newline and
// backslash.
func unescapeMount(s string) string {
	r := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)
	return r.Replace(s)
}
