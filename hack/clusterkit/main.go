// Command clusterkit does for the cluster scripts (hack/dev-cluster.sh,
// hack/real-cluster.sh, through hack/lib/cluster.sh) what is clearer in Go than
// in bash: the real cluster's certificates and kubeconfigs, the dev cluster's
// impersonating kubeconfig, and waiting, with a timeout, until the API server,
// CRDs, nodes or an HTTP endpoint are ready, saying what was still missing.
//
//	clusterkit ca DIR CN                        DIR/ca.crt, DIR/ca.key
//	clusterkit cert DIR NAME SUBJECT [SANS]     DIR/NAME.crt, DIR/NAME.key, signed by DIR/ca
//	clusterkit sa-key DIR                       DIR/sa.key, DIR/sa.pub (service account tokens)
//	clusterkit kubeconfig OUT CONTEXT SERVER CA NAME
//	                                            OUT for the client certificate NAME beside
//	                                            CA, its cluster and context named CONTEXT
//	clusterkit impersonate IN OUT USER          IN's current context, flattened, acting as USER
//	clusterkit wait [flags] CHECK [ARGS]        until CHECK holds (see wait.go)
//	clusterkit node HOST.json up SLOT NAME [LABEL=VALUE|--taint KEY=VALUE:EFFECT]...
//	                                            a real-cluster node in SLOT (package node)
//	clusterkit node HOST.json stop|remove|kubelet-stop|kubelet-start|leftovers SLOT
//
// Files that exist are kept: the commands are idempotent, as the scripts' up is.
package main

import (
	"fmt"
	"os"

	"github.com/benchwright/benchwright/hack/clusterkit/pki"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "clusterkit:", err)
		os.Exit(1)
	}
}

// usageError is a command line clusterkit cannot run.
type usageError string

func (e usageError) Error() string { return "usage: clusterkit " + string(e) }

func run(args []string) error {
	if len(args) == 0 {
		return usageError("ca|cert|sa-key|kubeconfig|impersonate|wait|node ...")
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "ca":
		if len(args) != 2 {
			return usageError("ca DIR CN")
		}
		return pki.WriteCA(args[0], args[1])
	case "cert":
		if len(args) != 3 && len(args) != 4 {
			return usageError("cert DIR NAME SUBJECT [SANS]")
		}
		sans := ""
		if len(args) == 4 {
			sans = args[3]
		}
		return pki.WriteCert(args[0], args[1], args[2], sans)
	case "sa-key":
		if len(args) != 1 {
			return usageError("sa-key DIR")
		}
		return pki.WriteServiceAccountKey(args[0])
	case "kubeconfig":
		if len(args) != 5 {
			return usageError("kubeconfig OUT CONTEXT SERVER CA NAME")
		}
		return pki.WriteKubeconfig(args[0], args[1], args[2], args[3], args[4])
	case "impersonate":
		if len(args) != 3 {
			return usageError("impersonate IN OUT USER")
		}
		return pki.WriteImpersonating(args[0], args[1], args[2])
	case "wait":
		return wait(args)
	case "node":
		return nodeCommand(args)
	default:
		return usageError("ca|cert|sa-key|kubeconfig|impersonate|wait|node ... (not " + cmd + ")")
	}
}
