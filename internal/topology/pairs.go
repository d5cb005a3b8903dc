package topology

import "fmt"

// Scope is where a pair's two ends are relative to each other.
type Scope string

// The scopes of seed 002's chiplet matrix.
const (
	IntraSocket Scope = "intraSocket"
	InterSocket Scope = "interSocket"
	InterNode   Scope = "interNode"
)

// End is one end of a pair: a CPU and where it sits.
type End struct {
	CPU     int `json:"cpu"`
	Chiplet int `json:"chiplet"`
	Package int `json:"package"`
}

// Pair is one measurement between a server and a client CPU.
type Pair struct {
	Scope  Scope `json:"scope"`
	Server End   `json:"server"`
	Client End   `json:"client"`
}

// FirstCPU is the lowest-numbered CPU of chiplet n.
func (t *Topology) FirstCPU(n int) (CPU, bool) {
	for _, c := range t.CPUs { // sorted by ID
		if c.Chiplet == n {
			return c, true
		}
	}
	return CPU{}, false
}

// otherCore is the lowest-numbered CPU of c's chiplet on another core than
// c's (not an SMT sibling).
func (t *Topology) otherCore(c CPU) (CPU, bool) {
	for _, o := range t.CPUs { // sorted by ID
		if o.Chiplet == c.Chiplet && o.Package == c.Package && o.Core != c.Core {
			return o, true
		}
	}
	return CPU{}, false
}

// Chiplets counts the chiplets.
func (t *Topology) Chiplets() int { return len(t.chiplets()) }

// Packages counts the packages (sockets).
func (t *Topology) Packages() int { return packages(t) }

// chiplets are the chiplet numbers in order.
func (t *Topology) chiplets() []int {
	var out []int
	for _, c := range t.CPUs {
		if len(out) == 0 || out[len(out)-1] < c.Chiplet {
			out = append(out, c.Chiplet)
		}
	}
	return out
}

// Pairs are seed 002's pairs: from the first CPU of chiplet from on the
// server's machine to the next CPU of its own chiplet on another core, and
// to the first CPU of every other chiplet of its package (intraSocket), of every chiplet of the other packages (interSocket), and of
// every chiplet of the client's machine (interNode; client may be nil for
// the other scopes).
func Pairs(server, client *Topology, from int, scopes []Scope) ([]Pair, error) {
	first, ok := server.FirstCPU(from)
	if !ok {
		return nil, fmt.Errorf("chiplet %d does not exist: this machine has chiplets 0 to %d (by %s)", from, len(server.chiplets())-1, server.ChipletsFrom)
	}
	srv := End{CPU: first.ID, Chiplet: first.Chiplet, Package: first.Package}
	var out []Pair
	for _, scope := range scopes {
		t := server
		if scope == InterNode {
			if client == nil {
				return nil, fmt.Errorf("scope %s needs the client node's topology", scope)
			}
			t = client
		}
		n := 0
		if scope == IntraSocket {
			// Chiplet from to itself: its first CPU to the next on another
			// core (the seed's CPU 0 -> CPU 1).
			if c, ok := server.otherCore(first); ok {
				out = append(out, Pair{Scope: scope, Server: srv, Client: End{CPU: c.ID, Chiplet: c.Chiplet, Package: c.Package}})
				n++
			}
		}
		for _, ch := range t.chiplets() {
			c, _ := t.FirstCPU(ch)
			switch scope {
			case IntraSocket:
				if ch == from || c.Package != first.Package {
					continue
				}
			case InterSocket:
				if c.Package == first.Package {
					continue
				}
			case InterNode:
			default:
				return nil, fmt.Errorf("unknown scope %q: use %s, %s or %s", scope, IntraSocket, InterSocket, InterNode)
			}
			out = append(out, Pair{Scope: scope, Server: srv, Client: End{CPU: c.ID, Chiplet: c.Chiplet, Package: c.Package}})
			n++
		}
		if n == 0 {
			return nil, fmt.Errorf("scope %s has no pair here: %s; leave the scope out, or give explicit pairs", scope, t.describe())
		}
	}
	return out, nil
}

// describe says what the machine has, for a message.
func (t *Topology) describe() string {
	by := map[string]string{
		"l3":      "one per L3 cache",
		"numa":    "one per NUMA node",
		"package": "one per socket: a socket has one L3 cache and one NUMA node",
	}[t.ChipletsFrom]
	return fmt.Sprintf("%d CPUs in %d socket(s), %d chiplet(s) (%s)", len(t.CPUs), packages(t), len(t.chiplets()), by)
}

func packages(t *Topology) int {
	seen := map[int]bool{}
	for _, c := range t.CPUs {
		seen[c.Package] = true
	}
	return len(seen)
}
