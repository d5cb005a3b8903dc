package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print benchwright's version, the commit it was built from and its Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), versionLine())
			return err
		},
	}
}

// versionLine is "benchwright VERSION (commit REV[, modified]) GO OS/ARCH",
// from what the Go toolchain recorded in the binary: the module's version
// ("(devel)" for a build from a checkout) and the checkout's commit.
func versionLine() string {
	version, commit, modified := "(unknown)", "", false
	if info, ok := debug.ReadBuildInfo(); ok {
		version = info.Main.Version
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	line := "benchwright " + version
	if commit != "" {
		line += " (commit " + commit[:min(len(commit), 12)]
		if modified {
			line += ", modified"
		}
		line += ")"
	}
	return line + " " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
}
