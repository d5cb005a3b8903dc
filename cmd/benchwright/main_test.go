package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// execute runs the benchwright command with args as main does, and returns
// the exit code, stdout and stderr.
func execute(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := newRootCommand()
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	code = exitCode(&errOut, cmd, err)
	return code, out.String(), errOut.String()
}

// A failing step's code is the process's, as the controller reads it (3 for
// a wrong MPI, 127 for a missing program); its output said why, and nothing
// is added on stderr.
func TestStepsExitCodeThroughMain(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		code int
	}{
		{[]string{"/bin/echo", "ok"}, 0},
		{[]string{"sh", "-c", "exit 3"}, 3},
		{[]string{"osu_latency_not_installed"}, 127},
	} {
		code, stdout, stderr := execute(t, "steps", launchFile(t, tc.argv))
		if code != tc.code || stderr != "" {
			t.Errorf("%v: exit code %d, stderr %q; want %d and nothing", tc.argv, code, stderr, tc.code)
		}
		if !strings.Contains(stdout, "==> benchwright step 1/1 exited with code ") {
			t.Errorf("%v: stdout:\n%s", tc.argv, stdout)
		}
	}
	// A file that is not a launch file is an error of its own, printed once.
	code, _, stderr := execute(t, "steps", "/nonexistent/launch.json")
	if code != 1 || stderr != "benchwright: open /nonexistent/launch.json: no such file or directory\n" {
		t.Errorf("missing file: exit code %d, stderr %q", code, stderr)
	}
}

func TestExitCode(t *testing.T) {
	root := newRootCommand()
	steps, _, _ := root.Find([]string{"steps"})
	for _, tc := range []struct {
		err    error
		code   int
		stderr string
	}{
		{nil, 0, ""},
		{&exitError{code: 143}, 143, ""},
		{&runError{&exitError{code: 3}}, 3, ""},
		{&exitError{code: 2, err: errors.New("half done")}, 2, "benchwright: half done\n"},
		{&runError{errors.New("broken")}, 1, "benchwright: broken\n"},
		// cobra's: how the command was called.
		{errors.New(`accepts 1 arg(s), received 0`), 1, "benchwright: accepts 1 arg(s), received 0\nRun 'benchwright steps --help' for usage.\n"},
	} {
		var stderr bytes.Buffer
		if code := exitCode(&stderr, steps, tc.err); code != tc.code || stderr.String() != tc.stderr {
			t.Errorf("%v: exit code %d, stderr %q; want %d, %q", tc.err, code, stderr.String(), tc.code, tc.stderr)
		}
	}
}

// A missing required flag or argument says so, once, and names the help;
// usage is not dumped.
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"run"}, "benchwright: required flag(s) \"file\" not set\nRun 'benchwright run --help' for usage.\n"},
		{[]string{"parse", "out.json"}, "benchwright: required flag(s) \"tool\" not set\nRun 'benchwright parse --help' for usage.\n"},
		{[]string{"netbench"}, "benchwright: required flag(s) \"input\" not set\nRun 'benchwright netbench --help' for usage.\n"},
		{[]string{"steps"}, "benchwright: accepts 1 arg(s), received 0\nRun 'benchwright steps --help' for usage.\n"},
		{[]string{"run", "--nope"}, "benchwright: unknown flag: --nope\nRun 'benchwright run --help' for usage.\n"},
		{[]string{"nope"}, "benchwright: unknown command \"nope\" for \"benchwright\"\nRun 'benchwright --help' for usage.\n"},
	} {
		code, stdout, stderr := execute(t, tc.args...)
		if code != 1 || stderr != tc.stderr || stdout != "" {
			t.Errorf("%v: exit code %d, stderr %q, stdout %q; want 1, %q", tc.args, code, stderr, stdout, tc.stderr)
		}
	}
}
