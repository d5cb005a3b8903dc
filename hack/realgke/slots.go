package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// slots are the machine's node slots and the pool each one is given to. Its
// methods are safe for concurrent use: creates and deletes of different pools
// run at once.
type slots struct {
	mu    sync.Mutex
	owner map[int]string // slot -> pool key; "" is free
	order []int
}

func newSlots(numbers []int) *slots {
	s := &slots{owner: map[int]string{}, order: slices.Clone(numbers)}
	for _, n := range numbers {
		s.owner[n] = ""
	}
	return s
}

// take gives n free slots to pool, all or none: ok is false when fewer are
// free.
func (s *slots) take(pool string, n int) (taken []int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, slot := range s.order {
		if len(taken) < n && s.owner[slot] == "" {
			taken = append(taken, slot)
		}
	}
	if len(taken) < n {
		return nil, false
	}
	for _, slot := range taken {
		s.owner[slot] = pool
	}
	return taken, true
}

// free frees the slots.
func (s *slots) free(taken []int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, slot := range taken {
		s.owner[slot] = ""
	}
}

// numbers are all the slots.
func (s *slots) numbers() []int { return slices.Clone(s.order) }

// inUse counts the slots given to a pool.
func (s *slots) inUse() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, pool := range s.owner {
		if pool != "" {
			n++
		}
	}
	return n
}

// parseSlots reads --slots: distinct positive slot numbers, comma-separated.
func parseSlots(list string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--slots %q: %q is not a slot number (want positive integers, e.g. 3,4)", list, f)
		}
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("--slots %q: slot %d is given twice", list, n)
		}
		out = append(out, n)
	}
	return out, nil
}
