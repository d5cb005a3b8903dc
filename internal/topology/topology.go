// Package topology reads a machine's CPU topology from sysfs (packages,
// NUMA nodes, L3 caches, SMT siblings) and groups its CPUs into chiplets, as
// a NetworkBenchmark chooses the CPUs it measures between.
package topology

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// CPU is one online logical CPU.
type CPU struct {
	ID int `json:"id"`
	// Package is the socket (physical_package_id).
	Package int `json:"package"`
	// Core is the core id within the package (core_id).
	Core int `json:"core"`
	// NUMA is the NUMA node, -1 when sysfs has none.
	NUMA int `json:"numa"`
	// L3 is the id of the CPU's L3 cache, -1 when it has none.
	L3 int `json:"l3"`
	// Chiplet numbers the CPU's chiplet machine-wide, in order of first CPU.
	Chiplet int `json:"chiplet"`
	// Siblings are the SMT threads of its core, itself included.
	Siblings []int `json:"siblings"`
}

// Topology is a machine's CPUs and how they were grouped.
type Topology struct {
	CPUs []CPU `json:"cpus"`
	// ChipletsFrom says what a chiplet is here: "l3" (CPUs sharing an L3
	// cache: the CCDs of EPYC), "numa" (a package with one L3 but several
	// NUMA nodes: Sapphire Rapids' tiles under sub-NUMA clustering), or
	// "package" (neither tells more).
	ChipletsFrom string `json:"chipletsFrom"`
}

// Read reads the topology under root, the sysfs mount ("/sys" on a node).
func Read(root string) (*Topology, error) {
	cpuDir := filepath.Join(root, "devices", "system", "cpu")
	online, err := readList(filepath.Join(cpuDir, "online"))
	if err != nil {
		return nil, fmt.Errorf("the online CPUs: %w", err)
	}
	numa, err := numaOf(filepath.Join(root, "devices", "system", "node"))
	if err != nil {
		return nil, err
	}
	t := &Topology{}
	for _, id := range online {
		dir := filepath.Join(cpuDir, "cpu"+strconv.Itoa(id))
		c := CPU{ID: id, NUMA: -1, L3: -1}
		if c.Package, err = readInt(filepath.Join(dir, "topology", "physical_package_id")); err != nil {
			return nil, err
		}
		if c.Core, err = readInt(filepath.Join(dir, "topology", "core_id")); err != nil {
			return nil, err
		}
		if c.Siblings, err = readList(filepath.Join(dir, "topology", "thread_siblings_list")); err != nil {
			return nil, err
		}
		if n, ok := numa[id]; ok {
			c.NUMA = n
		}
		if c.L3, err = l3Of(filepath.Join(dir, "cache")); err != nil {
			return nil, err
		}
		t.CPUs = append(t.CPUs, c)
	}
	if len(t.CPUs) == 0 {
		return nil, errors.New("no online CPU")
	}
	t.groupChiplets()
	return t, nil
}

// groupChiplets numbers the chiplets: by L3 cache where a package has
// several, else by NUMA node where a package has several, else by package.
func (t *Topology) groupChiplets() {
	perPackage := func(key func(CPU) int) bool {
		seen := map[int]map[int]bool{}
		for _, c := range t.CPUs {
			if seen[c.Package] == nil {
				seen[c.Package] = map[int]bool{}
			}
			seen[c.Package][key(c)] = true
		}
		for _, keys := range seen {
			if len(keys) > 1 {
				return true
			}
		}
		return false
	}
	key := func(c CPU) [2]int { return [2]int{c.Package, 0} }
	t.ChipletsFrom = "package"
	switch {
	case perPackage(func(c CPU) int { return c.L3 }):
		key, t.ChipletsFrom = func(c CPU) [2]int { return [2]int{c.Package, c.L3} }, "l3"
	case perPackage(func(c CPU) int { return c.NUMA }):
		key, t.ChipletsFrom = func(c CPU) [2]int { return [2]int{c.Package, c.NUMA} }, "numa"
	}
	slices.SortFunc(t.CPUs, func(a, b CPU) int { return cmp.Compare(a.ID, b.ID) })
	number := map[[2]int]int{}
	for i := range t.CPUs {
		k := key(t.CPUs[i])
		n, ok := number[k]
		if !ok {
			n = len(number)
			number[k] = n
		}
		t.CPUs[i].Chiplet = n
	}
}

// numaOf maps each CPU to its NUMA node from node*/cpulist; none without nodes.
func numaOf(nodeDir string) (map[int]int, error) {
	dirs, err := filepath.Glob(filepath.Join(nodeDir, "node[0-9]*"))
	if err != nil {
		return nil, err
	}
	out := map[int]int{}
	for _, d := range dirs {
		n, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), "node"))
		if err != nil {
			continue
		}
		cpus, err := readList(filepath.Join(d, "cpulist"))
		if err != nil {
			return nil, err
		}
		for _, c := range cpus {
			out[c] = n
		}
	}
	return out, nil
}

// l3Of is the id of the level-3 cache among cache/index*; -1 without one.
// Kernels without cache ids give the first CPU of shared_cpu_list instead.
func l3Of(cacheDir string) (int, error) {
	dirs, _ := filepath.Glob(filepath.Join(cacheDir, "index[0-9]*"))
	for _, d := range dirs {
		level, err := readInt(filepath.Join(d, "level"))
		if err != nil || level != 3 {
			continue
		}
		if id, err := readInt(filepath.Join(d, "id")); err == nil {
			return id, nil
		}
		shared, err := readList(filepath.Join(d, "shared_cpu_list"))
		if err != nil || len(shared) == 0 {
			return 0, fmt.Errorf("%s: no id and no shared_cpu_list", d)
		}
		return shared[0], nil
	}
	return -1, nil
}

func readInt(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

func readList(path string) ([]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	list, err := ParseList(strings.TrimSpace(string(b)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return list, nil
}

// ParseList reads the kernel's CPU list notation: "0-3,8,10-11".
func ParseList(s string) ([]int, error) {
	var out []int
	if s == "" {
		return nil, nil
	}
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("%q is not a CPU list", s)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a || b-a > 1<<16 {
				return nil, fmt.Errorf("%q is not a CPU list", s)
			}
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	return out, nil
}

// FormatList writes sorted CPU numbers in the kernel's list notation.
func FormatList(ids []int) string {
	var b strings.Builder
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(ids[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(ids[j]))
		}
		i = j + 1
	}
	return b.String()
}
