// Command realgke is the real cluster's GKE endpoint: the fake ClusterManager
// (test/fakegke) served over TLS on the control plane's bridge, whose node
// pools are real nodes. A create takes free node slots of this machine,
// starts a node in each (hack/clusterkit/node) with the pool's labels and
// taints and GKE's node labels, and is DONE once they are Ready Nodes; with
// too few free slots it fails with GKE's stockout. A delete drains the nodes,
// stops them and deletes their Node objects. At start it removes the nodes an
// earlier run left, which GKE no longer knows.
//
//	realgke --listen 10.99.0.1:8443 --tls-cert gke.crt --tls-key gke.key \
//	  --cluster projects/P/locations/ZONE/clusters/C --kubeconfig admin.kubeconfig \
//	  --slots 3,4 --host-config nodes.json
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/benchwright/benchwright/internal/gke"
	"github.com/benchwright/benchwright/test/fakegke"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "realgke:", err)
		os.Exit(1)
	}
}

// config is the command line.
type config struct {
	listen, tlsCert, tlsKey, cluster, kubeconfig, slots, hostConfig string
}

func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("realgke", flag.ContinueOnError)
	fs.StringVar(&c.listen, "listen", "10.99.0.1:8443", "host:port to serve the ClusterManager API on")
	fs.StringVar(&c.tlsCert, "tls-cert", "", "the server certificate (PEM), signed by the cluster's CA")
	fs.StringVar(&c.tlsKey, "tls-key", "", "the server certificate's key (PEM)")
	fs.StringVar(&c.cluster, "cluster", "", "the cluster it serves, projects/P/locations/ZONE/clusters/C")
	fs.StringVar(&c.kubeconfig, "kubeconfig", "", "the cluster's admin kubeconfig")
	fs.StringVar(&c.slots, "slots", "", "the node slots it may use, comma-separated (e.g. 3,4): as many GKE nodes as the machine holds")
	fs.StringVar(&c.hostConfig, "host-config", "", "the node host's configuration (JSON, read by hack/clusterkit/node)")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	for name, v := range map[string]string{"tls-cert": c.tlsCert, "tls-key": c.tlsKey, "cluster": c.cluster,
		"kubeconfig": c.kubeconfig, "slots": c.slots, "host-config": c.hostConfig} {
		if v == "" {
			return config{}, fmt.Errorf("--%s is required", name)
		}
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments %q: every setting is a flag", fs.Args())
	}
	return c, nil
}

func run(args []string) error {
	c, err := parseFlags(args)
	if err != nil {
		return err
	}
	cluster, err := gke.ParseCluster(c.cluster)
	if err != nil {
		return fmt.Errorf("--cluster: %w", err)
	}
	slotNumbers, err := parseSlots(c.slots)
	if err != nil {
		return err
	}
	cert, err := tls.LoadX509KeyPair(c.tlsCert, c.tlsKey)
	if err != nil {
		return fmt.Errorf("--tls-cert/--tls-key: %w", err)
	}
	rest, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig)
	if err != nil {
		return fmt.Errorf("--kubeconfig: %w", err)
	}
	kube, err := kubernetes.NewForConfig(rest)
	if err != nil {
		return fmt.Errorf("--kubeconfig: %w", err)
	}
	nodes, err := loadHost(c.hostConfig)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	p := NewProvisioner(cluster, nodes, kube, slotNumbers, os.Stderr)
	if err := p.Clean(ctx); err != nil {
		return fmt.Errorf("removing the nodes an earlier run left: %w", err)
	}
	lis, err := net.Listen("tcp", c.listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	srv, served := Serve(lis, p, cert)
	defer srv.Stop()
	fmt.Fprintf(os.Stderr, "realgke: serving %s on %s with slots %v\n", cluster.Parent(), lis.Addr(), slotNumbers)
	select {
	case <-ctx.Done():
		return nil
	case err := <-served:
		return fmt.Errorf("serving: %w", err)
	}
}

// Serve serves the fake GKE for p's cluster on lis over TLS with cert, p as
// its Work hook, until Stop; served gets Serve's error.
func Serve(lis net.Listener, p *Provisioner, cert tls.Certificate) (srv *fakegke.Server, served <-chan error) {
	cluster := fakegke.Cluster{Parent: p.cluster.Parent(), Locations: fakegke.DefaultZones(p.cluster.Location)}
	srv = fakegke.New(fakegke.WithClusterConfig(cluster), fakegke.WithOperationWork(p.Work))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(lis, grpc.Creds(credentials.NewServerTLSFromCert(&cert))) }()
	return srv, errc
}
