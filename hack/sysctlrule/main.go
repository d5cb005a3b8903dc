// Command sysctlrule writes the TuningProfile CRD's allow-list rule from
// internal/tuning's table into the kubebuilder marker of
// api/v1alpha1/tuningprofile_types.go (make generate runs it before
// controller-gen), so the API server and the tuner read one list.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/benchwright/benchwright/internal/tuning"
)

const file = "api/v1alpha1/tuningprofile_types.go"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "sysctlrule:", err)
		os.Exit(1)
	}
}

func run() error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	marker := `// +kubebuilder:validation:XValidation:rule="` + tuning.AllowListRule() + `",message="` + tuning.AllowListMessage + `"`
	lines := strings.Split(string(data), "\n")
	found := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "// +kubebuilder:validation:XValidation:") && strings.HasSuffix(l, `,message="`+tuning.AllowListMessage+`"`) {
			lines[i] = marker
			found++
		}
	}
	if found != 1 {
		return fmt.Errorf("%s has %d allow-list markers (message %q), want 1", file, found, tuning.AllowListMessage)
	}
	return os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644)
}
