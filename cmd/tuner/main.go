// Command tuner is the node agent of a TuningProfile, run by its DaemonSet on
// every selected node: it applies the profile's settings, prints a report
// line for the controller, reads the settings again periodically (so drift
// shows), and restores the original values when it is stopped (SIGTERM).
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/benchwright/benchwright/internal/nodefacts"
	"github.com/benchwright/benchwright/internal/tuning"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

type options struct {
	settings, stateDir, profile, node string
	generation                        int64
	procSys, sysFS                    string
	interval, settingsWait            time.Duration
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("tuner", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.settings, "settings", "/etc/benchwright/tuning/settings.json", "the profile's settings (settings.json of the tuner's ConfigMap)")
	fs.StringVar(&o.stateDir, "state-dir", "/var/lib/benchwright/tuning", "where the original values are kept (a hostPath: it outlives the pod)")
	fs.StringVar(&o.profile, "profile", "", "the TuningProfile's name")
	fs.Int64Var(&o.generation, "generation", 0, "the TuningProfile's generation the settings must be for (0: any)")
	fs.StringVar(&o.node, "node", os.Getenv("NODE_NAME"), "this node's name (default $NODE_NAME, from the downward API)")
	fs.StringVar(&o.procSys, "proc-sys", "/proc/sys", "the sysctl tree (tests point it at a temporary directory)")
	fs.StringVar(&o.sysFS, "sysfs", "/sys", "the sysfs tree (tests point it at a temporary directory)")
	fs.DurationVar(&o.interval, "interval", time.Minute, "how often the settings are read again and reported")
	fs.DurationVar(&o.settingsWait, "settings-wait", 2*time.Minute, "how long to wait for the settings of this generation to appear")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.profile == "" || filepath.Base(o.profile) != o.profile || o.profile[0] == '.' {
		return o, fmt.Errorf("--profile must name a TuningProfile, got %q", o.profile)
	}
	return o, nil
}

// run is the tuner's life: apply, report until stopped, restore.
func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "benchwright-tuner:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	emit := func(r tuning.Report) {
		r.Node, r.Profile, r.Generation = o.node, o.profile, o.generation
		// The tuner runs in the host's network namespace with CAP_NET_ADMIN:
		// it counts the firewall rules benchmark pods cannot.
		if n, err := nodefacts.FirewallRules(); err == nil {
			r.FirewallRules = &n
		} else {
			fmt.Fprintln(stderr, "benchwright-tuner: counting the firewall rules:", err)
		}
		fmt.Fprintln(stdout, tuning.ReportLine(r))
	}
	cfg, err := waitForSettings(ctx, o)
	if errors.Is(err, context.Canceled) {
		return 0 // stopped before anything was changed
	}
	if err != nil {
		emit(tuning.Report{Phase: tuning.PhaseError, Time: time.Now().UTC(), Error: err.Error()})
		return 1
	}
	h := tuning.Host{ProcSys: o.procSys, SysFS: o.sysFS}
	path := filepath.Join(o.stateDir, o.profile+".json")
	if cfg.Restore {
		return restoring(ctx, h, path, o.interval, emit, stderr)
	}
	sf := tuning.StateFile{Path: path, Owner: owner()}
	fmt.Fprintf(stderr, "benchwright-tuner: applying %d setting(s) of TuningProfile %s (generation %d) on node %s as %s\n",
		len(cfg.Settings), o.profile, o.generation, o.node, sf.Owner)
	rep, err := tuning.Apply(h, sf, cfg.Settings, cfg.AllowUnlistedSysctls)
	emit(rep)
	if err != nil {
		// What was changed is in the state file: the restarted tuner takes it over.
		return 1
	}
	tick := time.NewTicker(o.interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			rep, err := tuning.Restore(h, sf)
			emit(rep)
			if err != nil {
				fmt.Fprintln(stderr, "benchwright-tuner: restoring:", err)
				return 1
			}
			return 0
		case <-tick.C:
			rep, _ := tuning.Check(h, sf, cfg.Settings, cfg.AllowUnlistedSysctls)
			emit(rep)
		}
	}
}

// restoring is the tuner of a deleted profile: it restores what the
// profile's earlier tuners left on the node, whichever of them owned it, and
// reports "restored" (or why not) at once, every interval (a restore that
// failed is tried again) and when it is stopped (a straggler's leftovers).
func restoring(ctx context.Context, h tuning.Host, path string, interval time.Duration, emit func(tuning.Report), stderr io.Writer) int {
	sf := tuning.StateFile{Path: path} // no owner: it takes over any tuner's originals
	pass := func() bool {
		rep, err := tuning.Restore(h, sf)
		emit(rep)
		if err != nil {
			fmt.Fprintln(stderr, "benchwright-tuner: restoring:", err)
		}
		return err == nil && rep.Phase == tuning.PhaseRestored
	}
	fmt.Fprintf(stderr, "benchwright-tuner: restoring the originals of %s\n", path)
	pass()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			if !pass() {
				return 1
			}
			return 0
		case <-tick.C:
			pass()
		}
	}
}

// waitForSettings reads the settings, waiting while the file is for another
// profile or generation: a ConfigMap update reaches a node's kubelet with a
// delay, and a new pod may start before it does.
func waitForSettings(ctx context.Context, o options) (tuning.Config, error) {
	deadline := time.Now().Add(o.settingsWait)
	for {
		cfg, err := readSettings(o.settings)
		if err == nil && (cfg.Profile != o.profile || (o.generation != 0 && cfg.Generation != o.generation)) {
			err = fmt.Errorf("%s is for TuningProfile %s generation %d, this tuner for %s generation %d",
				o.settings, cfg.Profile, cfg.Generation, o.profile, o.generation)
		}
		if err == nil || time.Now().After(deadline) {
			return cfg, err
		}
		select {
		case <-ctx.Done():
			return cfg, ctx.Err()
		case <-time.After(min(2*time.Second, o.settingsWait)):
		}
	}
}

func readSettings(path string) (tuning.Config, error) {
	var cfg tuning.Config
	b, err := os.ReadFile(path)
	if err != nil {
		return cfg, err
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return cfg, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// owner names this process in the state file: the pod (from the downward
// API) and a random part, so a restarted container is a new owner.
func owner() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	pod := os.Getenv("POD_NAME")
	if pod == "" {
		pod = "tuner"
	}
	return pod + "/" + hex.EncodeToString(b)
}
