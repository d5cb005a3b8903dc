// Command golangci-lint-kal is golangci-lint with the kube-api-linter module
// plugin (kubeapilinter) compiled in: the binary `golangci-lint custom` builds
// from a .custom-gcl.yml, built instead by `go build` from the module proxy
// alone (`golangci-lint custom` git-clones golangci-lint from GitHub). The
// Makefile builds it for make lint-api; go.mod and the Makefile pin the
// versions.
package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/golangci/golangci-lint/v2/pkg/commands"
	"github.com/golangci/golangci-lint/v2/pkg/exitcodes"

	// The module plugin registers itself (register.Plugin("kubeapilinter", ...)).
	_ "sigs.k8s.io/kube-api-linter"
)

func main() {
	info := commands.BuildInfo{Version: "unknown", Commit: "?", GoVersion: "unknown", Date: "(unknown)"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		info.GoVersion = bi.GoVersion
		var kal string
		for _, dep := range bi.Deps {
			switch dep.Path {
			case "github.com/golangci/golangci-lint/v2":
				info.Version = strings.TrimPrefix(dep.Version, "v")
			case "sigs.k8s.io/kube-api-linter":
				kal = dep.Version
			}
		}
		info.Commit = "kube-api-linter " + kal
	}
	if err := commands.Execute(info); err != nil {
		_, _ = fmt.Fprintf(os.Stderr, "The command is terminated due to an error: %v\n", err)
		os.Exit(exitcodes.Failure)
	}
}
