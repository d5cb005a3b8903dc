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
	dir, bin string
	cmd      *exec.Cmd
	exit     chan error
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
	p := &Postgres{dir: dir, bin: bin}
	run := p.command
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
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	p.URL = (&url.URL{Scheme: "postgres", User: url.UserPassword("bench", pgPassword), Path: "/postgres",
		RawQuery: url.Values{"host": {dir}, "sslmode": {"disable"}}.Encode()}).String()
	if err := p.Start(); err != nil {
		p.Stop()
		return nil, err
	}
	return p, nil
}

// command runs one of PostgreSQL's programs, as the postgres user when root.
func (p *Postgres) command(name string, args ...string) *exec.Cmd {
	path := filepath.Join(p.bin, name)
	if os.Geteuid() == 0 {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	}
	return exec.Command(path, args...)
}

// Start starts the server on its data, and waits until it takes connections.
func (p *Postgres) Start() error {
	p.cmd = p.command("postgres", "-D", filepath.Join(p.dir, "data"), "-k", p.dir, "-c", "listen_addresses=", "-c", "fsync=off", "-p", "5432")
	log, err := os.OpenFile(filepath.Join(p.dir, "postgres.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	p.cmd.Stdout, p.cmd.Stderr = log, log
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		return err
	}
	exit := make(chan error, 1)
	p.exit = exit
	go func() { exit <- p.cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exit:
			out, _ := os.ReadFile(log.Name())
			return fmt.Errorf("postgres exited: %w\n%s", err, out)
		case <-time.After(100 * time.Millisecond):
		}
		if _, err := os.Stat(filepath.Join(p.dir, ".s.PGSQL.5432")); err == nil {
			if out, err := p.command("pg_isready", "-h", p.dir, "-p", "5432").CombinedOutput(); err == nil {
				return nil
			} else if strings.Contains(string(out), "no response") {
				continue
			}
		}
	}
	p.Halt()
	return errors.New("postgres did not accept connections within 30 s")
}

// Halt stops the server (fast shutdown), keeping its data for Start.
func (p *Postgres) Halt() {
	if p.cmd == nil || p.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGINT)
	select {
	case err := <-p.exit:
		_ = err // the server's exit status after SIGINT says nothing
	case <-time.After(20 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		err := <-p.exit
		_ = err
	}
	p.cmd = nil
}

// Stop stops the server and removes its directory.
func (p *Postgres) Stop() {
	p.Halt()
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
