package nodefacts

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// FirewallRules counts the firewall rules of the calling process's network
// namespace: every nftables rule (any family: nft's own tables and
// iptables-nft's) and every legacy iptables / ip6tables rule (tables listed in
// /proc/net/ip{,6}_tables_names). It needs CAP_NET_ADMIN there: in the
// cluster only the privileged tuner, in the host's namespace, has it.
func FirewallRules() (int, error) {
	n, err := nftRules()
	if err != nil {
		return 0, fmt.Errorf("counting nftables rules: %w", err)
	}
	for _, fam := range []struct {
		names  string
		domain int
		level  int
		layout legacyLayout
	}{
		{"/proc/net/ip_tables_names", unix.AF_INET, unix.IPPROTO_IP, ipv4Layout},
		{"/proc/net/ip6_tables_names", unix.AF_INET6, unix.IPPROTO_IPV6, ipv6Layout},
	} {
		b, err := os.ReadFile(fam.names)
		if errors.Is(err, os.ErrNotExist) {
			continue // the legacy module is not loaded: no legacy rules
		}
		if err != nil {
			return 0, err
		}
		for _, table := range strings.Fields(string(b)) {
			m, err := legacyRules(fam.domain, fam.level, fam.layout, table)
			if err != nil {
				return 0, fmt.Errorf("counting the rules of legacy table %s (%s): %w", table, fam.names, err)
			}
			n += m
		}
	}
	return n, nil
}

// Socket options of x_tables (IPT_SO_GET_INFO, IPT_SO_GET_ENTRIES; the IPv6
// ones have the same numbers).
const (
	soGetInfo    = 64
	soGetEntries = 65
)

// legacyRules reads one legacy table through getsockopt and counts its rules.
func legacyRules(domain, level int, l legacyLayout, table string) (int, error) {
	fd, err := unix.Socket(domain, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.IPPROTO_RAW)
	if err != nil {
		return 0, err
	}
	defer func() { _ = unix.Close(fd) }()
	// struct ipt_getinfo: name[32], valid_hooks, hook_entry[5], underflow[5],
	// num_entries, size.
	info := make([]byte, 84)
	copy(info, table)
	if err := getsockopt(fd, level, soGetInfo, info); err != nil {
		return 0, err
	}
	valid := binary.NativeEndian.Uint32(info[32:])
	var underflows []uint32
	for h := range 5 {
		if valid&(1<<h) != 0 {
			underflows = append(underflows, binary.NativeEndian.Uint32(info[56+4*h:]))
		}
	}
	size := binary.NativeEndian.Uint32(info[80:])
	// struct ipt_get_entries: name[32], size, then the entries 8-aligned.
	entries := make([]byte, 40+int(size))
	copy(entries, table)
	binary.NativeEndian.PutUint32(entries[32:], size)
	if err := getsockopt(fd, level, soGetEntries, entries); err != nil {
		return 0, err
	}
	return countLegacyRules(l, entries[40:], underflows)
}

func getsockopt(fd, level, opt int, buf []byte) error {
	n := uint32(len(buf))
	_, _, errno := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(fd), uintptr(level), uintptr(opt),
		uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&n)), 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// nftRules dumps every nftables rule over netlink and counts them.
func nftRules() (int, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_NETFILTER)
	if err != nil {
		return 0, err
	}
	defer func() { _ = unix.Close(fd) }()
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return 0, err
	}
	// nlmsghdr + struct nfgenmsg (family AF_UNSPEC: all, version, res_id).
	req := make([]byte, unix.NLMSG_HDRLEN+4)
	binary.NativeEndian.PutUint32(req[0:], uint32(len(req)))
	binary.NativeEndian.PutUint16(req[4:], unix.NFNL_SUBSYS_NFTABLES<<8|unix.NFT_MSG_GETRULE)
	binary.NativeEndian.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	binary.NativeEndian.PutUint32(req[8:], 1)
	req[unix.NLMSG_HDRLEN+1] = unix.NFNETLINK_V0
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return 0, err
	}
	buf := make([]byte, 1<<16)
	rules := 0
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			return 0, err
		}
		done, count, err := countNftMessages(buf[:n])
		if err != nil {
			return 0, err
		}
		rules += count
		if done {
			return rules, nil
		}
	}
}

// countNftMessages counts the NEWRULE messages of one netlink read and tells
// whether the dump is done.
func countNftMessages(b []byte) (done bool, rules int, err error) {
	msgs, err := syscall.ParseNetlinkMessage(b)
	if err != nil {
		return false, 0, err
	}
	for _, m := range msgs {
		switch m.Header.Type {
		case unix.NLMSG_DONE:
			return true, rules, nil
		case unix.NLMSG_ERROR:
			if len(m.Data) >= 4 {
				if code := int32(binary.NativeEndian.Uint32(m.Data)); code != 0 {
					return false, 0, syscall.Errno(-code)
				}
			}
			return true, rules, nil
		case unix.NFNL_SUBSYS_NFTABLES<<8 | unix.NFT_MSG_NEWRULE:
			rules++
		}
	}
	return false, rules, nil
}
