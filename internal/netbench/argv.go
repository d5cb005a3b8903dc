package netbench

import (
	"strconv"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// ServerArgv is the server's command of a step, pinned to its CPU: fabtests
// with out-of-band setup on the step's ports (-E), bound to self; iperf3 as a
// one-off server.
func ServerArgv(in Input, s Step, self string) []string {
	argv := []string{"taskset", "-c", strconv.Itoa(s.Pair.Server.CPU)}
	if in.IPerf3 != nil {
		return append(argv, "iperf3", "-s", "-1", "-p", strconv.Itoa(s.Port()))
	}
	return append(append(argv, fabtestsArgs(in.Fabtests, s.Test)...),
		"-E="+strconv.Itoa(s.Port()+1), "-s", self, "-B", strconv.Itoa(s.Port()))
}

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
	return append(append(argv, fabtestsArgs(in.Fabtests, s.Test)...),
		"-E="+strconv.Itoa(s.Port()+1), "-s", self, "-P", strconv.Itoa(s.Port()), server)
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
