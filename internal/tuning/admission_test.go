package tuning

import (
	"context"
	"fmt"
	"strings"
	"testing"

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
	names := map[string]bool{
		"net.core.busy_poll": true, "net.ipv4.tcp_rmem": true, "vm.swappiness": true, "kernel.sched_migration_cost_ns": true,
		"kernel.panic": true, "kernel.shmmax": true, "net.ipv4.conf.eth0.rp_filter": true, "net.ipv4.conf.forwarding": true,
		"net.ipv6.conf.all.accept_ra": true, "net.bridge.foo": true,
	}
	for _, m := range []map[string]bool{allowedKeys, nodeBreakers, hardDenied} {
		for n := range m {
			names[n] = true
		}
	}
	for _, p := range nodeBreakerPatterns {
		for _, iface := range []string{"all", "default", "eth0", "ens4"} {
			if p.suffix == "" {
				names[p.prefix+"call-"+iface] = true
			} else {
				names[p.prefix+iface+p.suffix] = true
			}
		}
	}
	for _, p := range hardDeniedPrefixes {
		names[p+"x"] = true
	}
	// The tuner's words for a node breaker, which the API server repeats.
	breaker := strings.TrimSuffix(strings.TrimPrefix(refuse("vm.panic_on_oom", false), "it would "), " it")

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
			case !allow && nodeBreaker(name) && !HardDenied(name) && !strings.Contains(errs.ToAggregate().Error(), breaker):
				t.Errorf("%s: the API server's message %q does not say what the tuner says (%q)", name, errs.ToAggregate(), breaker)
			}
		}
	}
}
