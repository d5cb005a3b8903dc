package netbench

import (
	"strconv"
	"strings"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// ServerArgv is the server's command of a step, pinned to its CPU: fabtests
// bound to self on the step's port (with out-of-band setup on the next
// port, -E, where the test takes it: see outOfBand); iperf3 as a one-off
// server.
func ServerArgv(in Input, s Step, self string) []string {
	argv := []string{"taskset", "-c", strconv.Itoa(s.Pair.Server.CPU)}
	if in.IPerf3 != nil {
		return append(argv, "iperf3", "-s", "-1", "-p", strconv.Itoa(s.Port()))
	}
	argv = append(argv, fabtestsArgs(in.Fabtests, s.Test)...)
	if outOfBand(s.Test) {
		argv = append(argv, "-E="+strconv.Itoa(s.Port()+1))
	}
	return append(argv, "-s", self, "-B", strconv.Itoa(s.Port()))
}

// outOfBand tells whether a fabtests test exchanges its setup over an
// out-of-band socket (-E). Tests on rdm endpoints do. Tests on msg
// endpoints (fi_msg_*) do not: a 1.17 server opens its passive endpoint
// only after the out-of-band accept, and a client that connects right after
// that exchange is refused (fi_msg_pingpong: "eq_readerr 111 (Connection
// refused)", seen under load); without it the server is ready once its
// passive endpoint listens on the step's port.
func outOfBand(test string) bool { return !strings.HasPrefix(test, "fi_msg_") }

// ClientArgv is the client's command of a step, pinned to its CPU, towards
// the server at server. fabtests needs its own address (-s) besides the
// out-of-band port, or 1.17 takes itself for a server.
func ClientArgv(in Input, s Step, self, server string) []string {
	argv := []string{"taskset", "-c", strconv.Itoa(s.Pair.Client.CPU)}
	if p := in.IPerf3; p != nil {
		argv = append(argv, "iperf3", "-c", server, "-p", strconv.Itoa(s.Port()), "-J",
			"-t", strconv.Itoa(int(max(p.Seconds, 1))), "-P", strconv.Itoa(int(p.StreamsOrDefault())))
		if p.OmitSeconds > 0 {
			argv = append(argv, "-O", strconv.Itoa(int(p.OmitSeconds)))
		}
		if p.Reverse {
			argv = append(argv, "-R")
		}
		if p.Protocol == "UDP" {
			argv = append(argv, "-u")
			if p.Bitrate != "" {
				argv = append(argv, "-b", p.Bitrate)
			}
		}
		if p.BlockSize != "" {
			argv = append(argv, "-l", p.BlockSize)
		}
		return argv
	}
	argv = append(argv, fabtestsArgs(in.Fabtests, s.Test)...)
	if outOfBand(s.Test) {
		argv = append(argv, "-E="+strconv.Itoa(s.Port()+1))
	}
	return append(argv, "-s", self, "-P", strconv.Itoa(s.Port()), server)
}

// fabtestsArgs are the program and the options both sides share.
func fabtestsArgs(f *benchv1.FabtestsSettings, test string) []string {
	argv := []string{test, "-p", f.ProviderOrDefault()}
	if f.Domain != "" {
		argv = append(argv, "-d", f.Domain)
	}
	if test == "fi_rma_bw" {
		argv = append(argv, "-o", orDefault(f.RMAOperation, "write"))
	}
	if f.MessageSize != nil {
		argv = append(argv, "-S", strconv.FormatInt(*f.MessageSize, 10))
	} else {
		argv = append(argv, "-S", "all")
	}
	if f.Iterations != nil {
		argv = append(argv, "-I", strconv.Itoa(int(*f.Iterations)))
	}
	if f.WarmupIterations != nil {
		argv = append(argv, "-w", strconv.Itoa(int(*f.WarmupIterations)))
	}
	return argv
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
