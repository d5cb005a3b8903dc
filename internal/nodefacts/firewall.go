package nodefacts

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Legacy x_tables (iptables-legacy, ip6tables-legacy) lay a table out as
// entries, each a fixed header, its matches and a target. What sets the
// IPv4 and IPv6 entries apart for counting is where their offsets are.
type legacyLayout struct {
	// offsets is where target_offset (u16) and next_offset (u16) are in an
	// entry: after struct ipt_ip (84 bytes) and nfcache, or ip6t_ip6 (136).
	offsets int
	// header is sizeof(struct ipt_entry) / sizeof(struct ip6t_entry).
	header int
}

var (
	ipv4Layout = legacyLayout{offsets: 88, header: 112}
	ipv6Layout = legacyLayout{offsets: 140, header: 168}
)

// xtReturn is the standard target's verdict RETURN (-NF_REPEAT - 1).
const xtReturn = -5

// errEntries: the kernel's table does not parse.
var errEntries = errors.New("the table's entries do not parse")

// countLegacyRules counts the rules of one legacy table's entries (the
// entrytable of IPT_SO_GET_ENTRIES): every entry but the built-in chains'
// policies (at the underflow offsets), the ERROR entries that head user
// chains and end the table, and the RETURN that ends each user chain.
func countLegacyRules(l legacyLayout, table []byte, underflows []uint32) (int, error) {
	type entry struct {
		off      int
		target   string
		isReturn bool
	}
	var entries []entry
	for off := 0; off < len(table); {
		if off+l.header > len(table) {
			return 0, fmt.Errorf("%w: entry at %d is cut short", errEntries, off)
		}
		e := table[off:]
		targetOff := int(binary.NativeEndian.Uint16(e[l.offsets:]))
		next := int(binary.NativeEndian.Uint16(e[l.offsets+2:]))
		if targetOff < l.header || next < targetOff+32 || off+next > len(table) {
			return 0, fmt.Errorf("%w: entry at %d has target at %d and next at %d", errEntries, off, targetOff, next)
		}
		// struct xt_entry_target: u16 size, char name[29], u8 revision, then
		// the standard target's int verdict.
		t := e[targetOff:next]
		name := string(t[2:31])
		if i := indexZero(name); i >= 0 {
			name = name[:i]
		}
		ret := name == "" && len(t) >= 36 && int32(binary.NativeEndian.Uint32(t[32:])) == xtReturn
		entries = append(entries, entry{off: off, target: name, isReturn: ret})
		off += next
	}
	policy := map[int]bool{}
	for _, u := range underflows {
		policy[int(u)] = true
	}
	rules := 0
	for i, e := range entries {
		switch {
		case e.target == "ERROR", policy[e.off]:
		case e.isReturn && i+1 < len(entries) && entries[i+1].target == "ERROR":
			// A user chain's closing RETURN.
		default:
			rules++
		}
	}
	return rules, nil
}

func indexZero(s string) int {
	for i := range len(s) {
		if s[i] == 0 {
			return i
		}
	}
	return -1
}
