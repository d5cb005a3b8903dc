package netbench

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// listening tells whether a TCP socket of this network namespace listens on
// port, from /proc/net/tcp and tcp6: how a runner knows that a server it
// started is ready without connecting to it (fabtests' out-of-band socket
// accepts exactly one connection, which must be the client's).
func listening(port int) bool {
	want := fmt.Sprintf(":%04X", port)
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		if listensIn(f, want) {
			return true
		}
	}
	return false
}

func listensIn(path, portSuffix string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "  0: 00000000:71AE 00000000:0000 0A ..." : local address, remote, state.
		fields := strings.Fields(sc.Text())
		if len(fields) > 3 && strings.HasSuffix(fields[1], portSuffix) && fields[3] == "0A" {
			return true
		}
	}
	return false
}
