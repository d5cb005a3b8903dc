// Command server serves a file:// artifact store with the artifact server's
// plain handler, as the manager does: hack/artifact-rss.sh builds it from
// two trees to measure the server's memory under slow readers.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/go-logr/logr"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/artifactserver"
)

func main() {
	store := flag.String("store", "", "file:// URL of the store")
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on; the chosen one is printed")
	flag.Parse()
	s, err := artifacts.Open(context.Background(), *store)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	lis, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(lis.Addr().String())
	srv := &http.Server{Handler: artifactserver.New(s, logr.Discard()), ReadHeaderTimeout: 10 * time.Second}
	_ = srv.Serve(lis)
}
