package tuning

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/benchwright/benchwright/internal/validation"
	"github.com/benchwright/benchwright/test/specs"
)

// The API server (the TuningProfile CRD's CEL rules, run here by the
// offline validator on the same CRD) refuses exactly what the tuner would
// refuse on the node: the hard deny-list whatever allowUnlistedSysctls
// says, and, unless it is set, the node breakers and every key off the
// allow-list. The one exception is the write-only actions (vm.drop_caches,
// ...), which the API accepts and the tuner reports as refused. The lists
// here are allow.go's own, so a key added to one of them and not to the
// CRD's rules fails this test.
func TestAdmissionRefusesWhatTheTunerRefuses(t *testing.T) {
	v, err := validation.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{"kernel.panic": true, "kernel.shmmax": true, "net.bridge.foo": true}
	for _, a := range allowList {
		for _, i := range []string{"all", "default", "eth0", "ens4"} {
			names[strings.Replace(a.name, iface, i, 1)] = true
		}
	}
	for _, n := range knownNodeBreakers {
		names[n] = true
	}
	for n := range hardDenied {
		names[n] = true
	}
	for _, p := range hardDeniedPrefixes {
		names[p+"x"] = true
	}
	for name := range names {
		for _, allow := range []bool{false, true} {
			spec := fmt.Sprintf("pool: p\nallowUnlistedSysctls: %t\nsysctls: [{name: %s, value: \"1\"}]\n", allow, name)
			errs := v.Validate(context.Background(), specs.Object(t, "TuningProfile", "p", "", spec))
			tuner := refuse(name, allow)
			switch {
			case actions[name]:
				continue
			case tuner == "" && len(errs) > 0:
				t.Errorf("%s (allowUnlistedSysctls %t): the tuner would set it, the API server refuses it: %v", name, allow, errs.ToAggregate())
			case tuner != "" && len(errs) == 0:
				t.Errorf("%s (allowUnlistedSysctls %t): the API server accepts it, the tuner would refuse it: %s", name, allow, tuner)
			}
		}
	}
}

// knownNodeBreakers take an opted-in node off the network or out of memory,
// or weaken it, with a value a submitter picks; none may be on the list.
var knownNodeBreakers = []string{
	"net.ipv4.ip_forward", "net.ipv4.conf.all.forwarding", "net.ipv4.conf.eth0.forwarding",
	"net.ipv6.conf.all.forwarding", "net.ipv4.conf.all.route_localnet", "net.ipv6.conf.all.disable_ipv6",
	"net.ipv4.conf.all.arp_ignore", "net.ipv4.conf.all.arp_announce", "net.ipv4.conf.eth0.rp_filter",
	"net.ipv6.conf.all.accept_ra", "net.bridge.bridge-nf-call-iptables", "net.netfilter.nf_conntrack_max",
	"net.core.bpf_jit_harden", "net.core.bpf_jit_kallsyms", "net.core.bpf_jit_enable",
	"net.ipv4.ip_local_port_range", "net.ipv4.neigh.default.gc_thresh3", "net.ipv4.tcp_max_orphans",
	"net.ipv4.udp_mem", "net.ipv4.conf.all.log_martians.x", "net.ipv4.conf.a.b.log_martians",
	"vm.nr_hugepages", "vm.nr_hugepages_mempolicy", "vm.nr_overcommit_hugepages", "vm.min_free_kbytes",
	"vm.overcommit_memory", "vm.overcommit_ratio", "vm.overcommit_kbytes", "vm.panic_on_oom",
	"vm.mmap_min_addr", "vm.unprivileged_userfaultfd", "vm.max_map_count", "vm.vfs_cache_pressure",
	"vm.watermark_scale_factor", "vm.admin_reserve_kbytes", "vm.oom_kill_allocating_task",
	"kernel.sched_rt_runtime_us", "kernel.panic", "kernel.pid_max", "kernel.threads-max",
	// Found in the review of the exact list: a value of each stalls the
	// node's own connections (the kubelet's too).
	"net.ipv4.tcp_mem", "net.ipv4.tcp_adv_win_scale", "net.core.netdev_max_backlog", "net.core.somaxconn", "net.core.optmem_max",
}

// Every known node breaker is off the list, and the API server refuses it
// without allowUnlistedSysctls; every entry says why it is safe.
func TestNoNodeBreakerIsAllowed(t *testing.T) {
	v, err := validation.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range knownNodeBreakers {
		if Allowed(name) {
			t.Errorf("%s is on the allow-list", name)
		}
		spec := fmt.Sprintf("pool: p\nsysctls: [{name: %s, value: \"1\"}]\n", name)
		if errs := v.Validate(context.Background(), specs.Object(t, "TuningProfile", "p", "", spec)); len(errs) == 0 {
			t.Errorf("%s: the API server accepts it", name)
		}
	}
	for _, a := range allowList {
		if a.why == "" {
			t.Errorf("%s: the table does not say why it is safe", a.name)
		}
	}
}

// The CRD's allow-list rule is the one make generate writes from the table.
func TestCRDRuleIsTheTables(t *testing.T) {
	data, err := os.ReadFile("../../config/crd/bases/benchwright.io_tuningprofiles.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Schema struct {
					OpenAPIV3Schema struct {
						Properties map[string]struct {
							Rules []struct {
								Rule    string `json:"rule"`
								Message string `json:"message"`
							} `json:"x-kubernetes-validations"`
						} `json:"properties"`
					} `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatal(err)
	}
	for _, v := range crd.Spec.Versions {
		for _, r := range v.Schema.OpenAPIV3Schema.Properties["spec"].Rules {
			if r.Message == AllowListMessage {
				if r.Rule != AllowListRule() {
					t.Errorf("the CRD's allow-list rule is not the table's: run make generate\n got %s\nwant %s", r.Rule, AllowListRule())
				}
				return
			}
		}
	}
	t.Error("the CRD has no allow-list rule: run make generate")
}
