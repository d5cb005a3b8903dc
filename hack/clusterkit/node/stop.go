package node

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Stop stops slot's node and leaves nothing of it: its kubelet, kube-proxy,
// containers and containerd stopped, its mounts, cgroups, network namespace,
// certificate and state gone. Only the slot's containerd image store stays
// on disk, for the next node. The Node object is the caller's.
func (h *Host) Stop(ctx context.Context, slot int) error { return h.stopNode(ctx, slot, true) }

// Remove is Stop, and the slot's image store goes too.
func (h *Host) Remove(ctx context.Context, slot int) error { return h.stopNode(ctx, slot, false) }

func (h *Host) stopNode(ctx context.Context, slot int, keepImages bool) error {
	if err := h.checkSlot(slot); err != nil {
		return err
	}
	h.stop(kubeletName(slot))
	h.stop(fmt.Sprintf("kube-proxy-%d", slot))
	h.killContainers(slot)
	if keepImages {
		h.removeContainers(ctx, slot)
	}
	h.stop(fmt.Sprintf("containerd-%d", slot))
	h.killContainers(slot)
	for _, d := range []string{h.nodeDir(slot), h.runDir(slot)} {
		unmountUnder(d)
	}
	time.Sleep(200 * time.Millisecond)
	removeCgroups(slot)
	if err := h.deleteNetwork(ctx, slot); err != nil {
		return err
	}
	if s, err := h.spec(slot); err == nil {
		// The tuner's originals of this node (a hostPath per node name),
		// empty once it restored them.
		_ = os.Remove(filepath.Join("/var/lib/benchwright/tuning", s.Name))
	}
	h.forgetIdentity(slot)
	if err := os.RemoveAll(h.runDir(slot)); err != nil {
		return err
	}
	if !keepImages {
		return os.RemoveAll(h.nodeDir(slot))
	}
	entries, err := os.ReadDir(h.nodeDir(slot))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, e := range entries {
		if e.Name() != "containerd" {
			if err := os.RemoveAll(filepath.Join(h.nodeDir(slot), e.Name())); err != nil {
				return err
			}
		}
	}
	// The CRI plugin's records of the pods and containers that ran.
	for _, d := range []string{"sandboxes", "containers"} {
		_ = os.RemoveAll(filepath.Join(h.nodeDir(slot), "containerd", "root", "io.containerd.grpc.v1.cri", d))
	}
	return nil
}

// killContainers SIGKILLs every process in slot's cgroups (the containers)
// and every shim of its containerd.
func (h *Host) killContainers(slot int) {
	var pids []int
	files, _ := filepath.Glob("/sys/fs/cgroup/*/" + CgroupRoot(slot))
	for _, root := range files {
		_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Name() == "cgroup.procs" {
				pids = append(pids, readPids(p)...)
			}
			return nil
		})
	}
	pids = append(pids, processesWith("-address "+h.socket(slot))...)
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// removeContainers deletes every container (and its snapshot) from slot's
// running containerd, so the next node starts with the images alone.
func (h *Host) removeContainers(ctx context.Context, slot int) {
	if _, ok := h.running(fmt.Sprintf("containerd-%d", slot)); !ok {
		return
	}
	ctr := []string{"--address", h.socket(slot), "-n", "k8s.io"}
	ids, err := output(ctx, h.Ctr, append(ctr, "containers", "ls", "-q")...)
	if err != nil {
		return
	}
	for _, id := range strings.Fields(ids) {
		_ = run(ctx, h.Ctr, append(ctr, "tasks", "delete", "-f", id)...)
		_ = run(ctx, h.Ctr, append(ctr, "containers", "rm", id)...)
	}
}

func readPids(file string) []int {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// processesWith are the processes whose command line contains s.
func processesWith(s string) []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var pids []int
	for _, d := range dirs {
		cmd, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil || !strings.Contains(strings.ReplaceAll(string(cmd), "\x00", " "), s) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(d)); err == nil && pid != os.Getpid() {
			pids = append(pids, pid)
		}
	}
	return pids
}

// mountsUnder are the mount points at or under dir, deepest first.
func mountsUnder(dir string) []string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	defer f.Close()
	var mounts []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 4 && (fields[4] == dir || strings.HasPrefix(fields[4], dir+"/")) {
			mounts = append(mounts, fields[4])
		}
	}
	slices.Sort(mounts)
	slices.Reverse(mounts)
	return mounts
}

func unmountUnder(dir string) {
	for _, m := range mountsUnder(dir) {
		_ = syscall.Unmount(m, syscall.MNT_DETACH)
	}
}

// removeCgroups removes slot's cgroup trees, deepest first.
func removeCgroups(slot int) {
	roots, _ := filepath.Glob("/sys/fs/cgroup/*/" + CgroupRoot(slot))
	for _, root := range roots {
		var dirs []string
		_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		for i := len(dirs) - 1; i >= 0; i-- {
			_ = syscall.Rmdir(dirs[i])
		}
	}
}

// Leftovers names what of slot's node is still on this machine: processes,
// mounts, its network namespace, cgroups. Empty once Stop has run.
func (h *Host) Leftovers(slot int) []string {
	var found []string
	var procs []string
	for _, dir := range []string{h.runDir(slot) + "/", h.nodeDir(slot) + "/"} {
		for _, pid := range processesWith(dir) {
			procs = append(procs, strconv.Itoa(pid))
		}
	}
	for _, name := range []string{kubeletName(slot), fmt.Sprintf("kube-proxy-%d", slot), fmt.Sprintf("containerd-%d", slot)} {
		if pid, ok := h.running(name); ok {
			procs = append(procs, fmt.Sprintf("%s (%d)", name, pid))
		}
	}
	if len(procs) > 0 {
		found = append(found, "processes "+strings.Join(procs, ", "))
	}
	var mounts []string
	for _, dir := range []string{h.runDir(slot), h.nodeDir(slot)} {
		mounts = append(mounts, mountsUnder(dir)...)
	}
	if len(mounts) > 0 {
		found = append(found, fmt.Sprintf("%d mounts (%s)", len(mounts), mounts[0]))
	}
	if _, err := os.Stat("/run/netns/" + Netns(slot)); err == nil {
		found = append(found, "network namespace "+Netns(slot))
	}
	if cg, _ := filepath.Glob("/sys/fs/cgroup/*/" + CgroupRoot(slot)); len(cg) > 0 {
		found = append(found, "cgroups "+strings.Join(cg, ", "))
	}
	return found
}
