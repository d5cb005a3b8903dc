//go:build !linux

package nodefacts

import "errors"

// FirewallRules counts firewall rules on Linux only.
func FirewallRules() (int, error) { return 0, errors.New("firewall rules are counted on Linux only") }
