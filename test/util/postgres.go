package util

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Postgres is a real PostgreSQL server of Debian's package, started for a
// test run in a directory of its own and listening only on a Unix socket
// there, with password (SCRAM) authentication.
type Postgres struct {
	dir  string
	cmd  *exec.Cmd
	exit chan error
	// URL reaches it as its superuser, password in the URL.
	URL string
}

// pgPassword is the test server's password: it only listens on a socket
// in a directory of the test's own.
const pgPassword = "bench-pw-0"

// StartPostgres initialises a cluster under a new temporary directory and
// starts it (as the postgres user when root: initdb refuses root). It fails
// when PostgreSQL is not installed: make test-deps installs it.
func StartPostgres() (*Postgres, error) {
	bin, err := postgresBin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "benchwright-pg-")
	if err != nil {
		return nil, err
	}
	p := &Postgres{dir: dir, exit: make(chan error, 1)}
	run := func(name string, args ...string) *exec.Cmd {
		path := filepath.Join(bin, name)
		if os.Geteuid() == 0 {
			return exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
		}
		return exec.Command(path, args...)
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root, PostgreSQL needs its postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
	}
	pwfile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwfile, []byte(pgPassword+"\n"), 0o644); err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	if out, err := run("initdb", "-D", data, "-U", "bench", "--auth=scram-sha-256", "--pwfile="+pwfile, "-E", "UTF8", "--no-locale").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	p.cmd = run("postgres", "-D", data, "-k", dir, "-c", "listen_addresses=", "-c", "fsync=off", "-p", "5432")
	log, err := os.Create(filepath.Join(dir, "postgres.log"))
	if err != nil {
		return nil, err
	}
	p.cmd.Stdout, p.cmd.Stderr = log, log
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { p.exit <- p.cmd.Wait() }()
	p.URL = (&url.URL{Scheme: "postgres", User: url.UserPassword("bench", pgPassword), Path: "/postgres",
		RawQuery: url.Values{"host": {dir}, "sslmode": {"disable"}}.Encode()}).String()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-p.exit:
			out, _ := os.ReadFile(log.Name())
			return nil, fmt.Errorf("postgres exited: %v\n%s", err, out)
		case <-time.After(100 * time.Millisecond):
		}
		if _, err := os.Stat(filepath.Join(dir, ".s.PGSQL.5432")); err == nil {
			if out, err := run("pg_isready", "-h", dir, "-p", "5432").CombinedOutput(); err == nil {
				return p, nil
			} else if strings.Contains(string(out), "no response") {
				continue
			}
		}
	}
	p.Stop()
	return nil, errors.New("postgres did not accept connections within 30 s")
}

// Stop stops the server (fast shutdown) and removes its directory.
func (p *Postgres) Stop() {
	if p.cmd != nil && p.cmd.Process != nil {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGINT)
		select {
		case <-p.exit:
		case <-time.After(20 * time.Second):
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			<-p.exit
		}
	}
	_ = os.RemoveAll(p.dir)
}

// postgresBin is the newest /usr/lib/postgresql/N/bin with a postgres.
func postgresBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	if len(dirs) == 0 {
		return "", errors.New("PostgreSQL is not installed (/usr/lib/postgresql/*/bin/postgres): run make test-deps, or apt-get install postgresql")
	}
	return filepath.Dir(dirs[0]), nil
}

func versionOf(path string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(path))))
	return v
}
