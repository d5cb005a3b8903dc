package local

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Options say where a local run works, writes and reports.
type Options struct {
	// WorkDir is where the volumes' directories are made (default: the system's
	// temporary directory). Put it on the disk you want to measure.
	WorkDir string
	// ResultsDir receives <name>/ with the result files (default
	// ./benchwright-results).
	ResultsDir string
	// Progress receives progress lines; nil discards them.
	Progress io.Writer
	// FioPath and DDPath name the tools (default: looked up on PATH).
	FioPath, DDPath string
	// Now is the clock (tests set it).
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	if o.WorkDir == "" {
		o.WorkDir = defaultWorkDir()
	}
	if o.ResultsDir == "" {
		o.ResultsDir = "benchwright-results"
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	if o.FioPath == "" {
		o.FioPath = "fio"
	}
	if o.DDPath == "" {
		o.DDPath = "dd"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

func (o Options) progress(format string, args ...any) {
	fmt.Fprintf(o.Progress, "benchwright: "+format+"\n", args...)
}

// MissingToolError says which tool is missing and how to get it.
type MissingToolError struct {
	Tool    string
	Install string
}

func (e *MissingToolError) Error() string {
	return fmt.Sprintf("%s is not installed or not on PATH; install it with: %s", e.Tool, e.Install)
}

var installHints = map[string]string{
	"fio": "sudo apt-get install fio (Debian/Ubuntu), sudo dnf install fio (Fedora/RHEL), brew install fio (macOS)",
	"dd":  "sudo apt-get install coreutils",
}

func requireTool(path, name string) error {
	if _, err := exec.LookPath(path); err != nil {
		return &MissingToolError{Tool: name, Install: installHints[name]}
	}
	return nil
}

// tmpfsMagic is the statfs type of tmpfs, where O_DIRECT fails and every byte
// is memory: no place to measure a disk.
const tmpfsMagic = 0x01021994

// defaultWorkDir is the temporary directory, or the current one when the
// temporary directory is a tmpfs.
func defaultWorkDir() string {
	dir := os.TempDir()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err == nil && st.Type == tmpfsMagic {
		return "."
	}
	return dir
}
