package nodefacts

import (
	"encoding/binary"
	"testing"
)

// legacyEntry is one IPv4 entry with a standard or named target.
func legacyEntry(target string, verdict int32) []byte {
	e := make([]byte, ipv4Layout.header+40)
	binary.NativeEndian.PutUint16(e[ipv4Layout.offsets:], uint16(ipv4Layout.header))
	binary.NativeEndian.PutUint16(e[ipv4Layout.offsets+2:], uint16(len(e)))
	t := e[ipv4Layout.header:]
	binary.NativeEndian.PutUint16(t, 40)
	copy(t[2:31], target)
	binary.NativeEndian.PutUint32(t[32:], uint32(verdict))
	return e
}

func TestCountLegacyRules(t *testing.T) {
	// INPUT: one rule, policy; user chain: head, one RETURN rule, tail; end.
	var table []byte
	table = append(table, legacyEntry("", -2)...)
	policy := uint32(len(table))
	table = append(table, legacyEntry("", -2)...)
	table = append(table, legacyEntry("ERROR", 0)...)
	table = append(table, legacyEntry("", xtReturn)...)
	table = append(table, legacyEntry("", xtReturn)...)
	table = append(table, legacyEntry("ERROR", 0)...)
	n, err := countLegacyRules(ipv4Layout, table, []uint32{policy})
	if err != nil || n != 2 {
		t.Errorf("counted %d (%v), want 2", n, err)
	}
	if _, err := countLegacyRules(ipv4Layout, table[:len(table)-1], nil); err == nil {
		t.Error("a table cut short parsed")
	}
}

func FuzzCountLegacyRules(f *testing.F) {
	f.Add(append(legacyEntry("", -2), legacyEntry("ERROR", 0)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := countLegacyRules(ipv4Layout, b, []uint32{0})
		if err == nil && (n < 0 || n > len(b)/ipv4Layout.header) {
			t.Fatalf("%d rules in %d bytes", n, len(b))
		}
		_, _ = countLegacyRules(ipv6Layout, b, nil)
	})
}
