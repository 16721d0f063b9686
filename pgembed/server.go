package pgembed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Options configure Start.
type Options struct {
	Dir      string // cluster folder, e.g. "$FLOPLEDGER_DATA_DIR/pg"; created if missing
	BinDir   string // optional; else FindBinaries("")
	User     string // unprivileged account to use when running as root; default "postgres"
	Database string // database to create if missing, default "flopledger"
	Logger   *slog.Logger
	// StartTimeout bounds the wait for the server to accept connections,
	// crash recovery included; default 60s. initdb is not counted.
	StartTimeout time.Duration
	// Fast trades durability for speed, for test clusters: initdb -N,
	// fsync=off, synchronous_commit=off, full_page_writes=off. A crash of
	// the machine (not of postgres) can then corrupt the cluster.
	Fast bool
	// FallbackDir holds clusters that the account cannot reach at Dir (root
	// only); default DefaultFallbackDir. Tests point it at a temp folder.
	FallbackDir string

	// noPdeathsig lets tests leave an orphaned postmaster behind.
	noPdeathsig bool
}

func (o Options) withDefaults() Options {
	if o.User == "" {
		o.User = "postgres"
	}
	if o.Database == "" {
		o.Database = "flopledger"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 60 * time.Second
	}
	if o.FallbackDir == "" {
		o.FallbackDir = DefaultFallbackDir
	}
	return o
}

// Server is a running postgres started by Start.
type Server struct {
	dir, sockDir, binDir string
	sockMoved            bool // sockDir is a folder of its own under os.TempDir()
	acct                 account
	log                  *slog.Logger
	lock                 *os.File
	logFile              *os.File
	logPath              string
	logOffset            int64 // size of the log before this start
	proc                 *child

	stopping atomic.Bool
	wait     chan error
	stopOnce sync.Once
	stopErr  error
}

// Start runs the cluster in o.Dir, creating it on first use, and returns
// once it accepts connections and o.Database exists. On failure nothing is
// left running and the lock is released.
func Start(ctx context.Context, o Options) (*Server, error) {
	o = o.withDefaults()
	if o.Dir == "" {
		return nil, errors.New("pgembed: Options.Dir is empty")
	}
	requested, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("pgembed: %w", err)
	}
	binDir, err := FindBinaries(o.BinDir)
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"pg_isready", "createdb"} {
		if !isExecutable(filepath.Join(binDir, name)) {
			return nil, fmt.Errorf("pgembed: %s has no %s; install the PostgreSQL client tools (e.g. `apt-get install postgresql-client`)",
				binDir, name)
		}
	}
	acct, err := lookupAccount(o.User)
	if err != nil {
		return nil, err
	}
	l, err := planLayout(requested, o.FallbackDir, acct)
	if err != nil {
		return nil, err
	}
	if l.relocated != "" {
		o.Logger.Warn("postgres cluster placed in fallback folder, because the requested folder is unreachable by the postgres account",
			"requested_dir", l.requested, "dir", l.dataDir, "account", acct.name, "reason", l.relocated)
	}
	lock, err := lockCluster(l.lockPath)
	if err != nil {
		return nil, err
	}
	s := &Server{dir: l.dataDir, binDir: binDir, acct: acct, log: o.Logger, lock: lock,
		logPath: l.logPath, wait: make(chan error, 1)}
	if err := s.start(ctx, o); err != nil {
		lock.Close()
		if s.logFile != nil {
			s.logFile.Close()
		}
		return nil, err
	}
	return s, nil
}

func (s *Server) start(ctx context.Context, o Options) error {
	begin := time.Now()
	if err := s.prepare(ctx, o); err != nil {
		return err
	}
	if err := s.launch(o); err != nil {
		return err
	}
	if err := s.waitReady(ctx, o.StartTimeout); err != nil {
		s.kill()
		return err
	}
	if err := createDatabase(ctx, s.binDir, s.sockDir, o.Database, s.acct); err != nil {
		s.kill()
		return err
	}
	s.log.Info("postgres started", "dir", s.dir, "socket_dir", s.sockDir, "pid", s.proc.pid(),
		"log", s.logPath, "took_ms", time.Since(begin).Milliseconds())
	return nil
}

// prepare readies the cluster folder under the lock: version check, initdb,
// socket folder, and removal of what a killed predecessor left running.
func (s *Server) prepare(ctx context.Context, o Options) error {
	want, err := binaryMajor(ctx, s.binDir)
	if err != nil {
		return err
	}
	have, err := clusterMajor(s.dir)
	if err != nil {
		return err
	}
	if have != "" && have != want {
		return fmt.Errorf("pgembed: %s holds a PostgreSQL %s cluster, but the binaries in %s are PostgreSQL %s; "+
			"point BinDir at PostgreSQL %s binaries, upgrade the cluster with pg_upgrade, or move the folder away to start afresh",
			s.dir, have, s.binDir, want, have)
	}
	if err := ensurePrivateDir(s.dir, s.acct, false); err != nil {
		return err
	}
	if have == "" {
		if err := checkEmpty(s.dir); err != nil {
			return err
		}
		begin := time.Now()
		if err := initdb(ctx, s.binDir, s.dir, s.acct, o.Fast); err != nil {
			return err
		}
		s.log.Info("postgres cluster initialized", "dir", s.dir, "version", want,
			"took_ms", time.Since(begin).Milliseconds())
	}
	if s.sockDir, s.sockMoved, err = socketDir(s.dir, s.acct); err != nil {
		return err
	}
	if s.sockMoved {
		s.log.Info("postgres socket placed in a short folder, because the cluster path is too long for a unix socket or holds a comma",
			"socket_dir", s.sockDir, "limit_bytes", maxSocketPath)
	}
	return s.clearPredecessor(ctx)
}

func checkEmpty(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("pgembed: %w", err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("pgembed: %s is not empty but holds no PostgreSQL cluster (no PG_VERSION); "+
			"empty it or choose another folder", dir)
	}
	return nil
}

// clearPredecessor handles a postmaster.pid left by a run that was killed.
// We hold the lock, so a postmaster running on this folder is an orphan of
// ours: stop it. A pid file naming a live process that is not such a
// postmaster is stale (the pid was reused); postgres would refuse to start
// on it (as the postgres account it cannot even tell whether a root-owned
// pid is alive), so remove it. A pid file naming a dead process postgres
// handles itself.
func (s *Server) clearPredecessor(ctx context.Context) error {
	pid, err := postmasterPID(s.dir)
	if err != nil || pid == 0 || !alive(pid) {
		return err
	}
	if isPostmasterOf(pid, s.dir) {
		s.log.Warn("stopping postmaster left running by a previous run", "pid", pid, "dir", s.dir)
		return stopOrphan(ctx, pid)
	}
	s.log.Info("removing stale postmaster.pid naming an unrelated live process", "pid", pid, "dir", s.dir)
	if err := os.Remove(filepath.Join(s.dir, "postmaster.pid")); err != nil {
		return fmt.Errorf("pgembed: remove stale postmaster.pid: %w", err)
	}
	return nil
}

// launch starts postgres as our direct child (pg_ctl would daemonize it,
// and then it would not die with us).
func (s *Server) launch(o Options) error {
	f, err := os.OpenFile(s.logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
	if err != nil {
		return fmt.Errorf("pgembed: open postgres log: %w", err)
	}
	s.logFile = f
	if fi, err := f.Stat(); err == nil {
		s.logOffset = fi.Size()
	}
	args := []string{"-D", s.dir,
		"-c", "listen_addresses=",
		"-c", "unix_socket_directories=" + quoteListItem(s.sockDir),
		"-c", "unix_socket_permissions=0700",
		"-c", "port=" + strconv.Itoa(SocketPort),
	}
	if o.Fast {
		args = append(args, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	cmd := exec.Command(filepath.Join(s.binDir, "postgres"), args...)
	cmd.Dir = "/"
	cmd.Env = childEnv(s.acct)
	cmd.Stdout, cmd.Stderr = f, f
	// SIGINT is a fast shutdown: clients are cut off, a checkpoint is
	// written, nothing committed is lost.
	deathSig := syscall.SIGINT
	if o.noPdeathsig {
		deathSig = 0
	}
	cmd.SysProcAttr = procAttr(s.acct, deathSig)
	if s.proc, err = startChild(cmd); err != nil {
		return fmt.Errorf("pgembed: start postgres: %w", err)
	}
	go s.monitor()
	return nil
}

// quoteListItem quotes a folder for unix_socket_directories, a
// comma-separated list in which commas, spaces and quotes need quoting.
func quoteListItem(dir string) string {
	if !strings.ContainsAny(dir, ", \t\"") {
		return dir
	}
	return `"` + strings.ReplaceAll(dir, `"`, `""`) + `"`
}

// waitReady polls the server with backoff until it accepts connections.
func (s *Server) waitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	delay := 5 * time.Millisecond
	for {
		if ready(ctx, s.binDir, s.sockDir, s.acct) {
			return nil
		}
		select {
		case <-s.proc.done:
			return fmt.Errorf("pgembed: postgres exited during start-up (%v); last lines of %s:\n%s",
				s.proc.err, s.logPath, logTail(s.logPath, s.logOffset, 20))
		case <-ctx.Done():
			return fmt.Errorf("pgembed: waiting for postgres: %w", ctx.Err())
		case <-deadline.C:
			return fmt.Errorf("pgembed: postgres not ready after %v; last lines of %s:\n%s",
				timeout, s.logPath, logTail(s.logPath, s.logOffset, 20))
		case <-time.After(delay):
		}
		delay = min(2*delay, 50*time.Millisecond)
	}
}

// monitor reports an exit that Stop did not ask for on the Wait channel.
func (s *Server) monitor() {
	<-s.proc.done
	if !s.stopping.Load() {
		err := fmt.Errorf("pgembed: postgres (pid %d) exited unexpectedly: %v; last lines of %s:\n%s",
			s.proc.pid(), s.proc.err, s.logPath, logTail(s.logPath, s.logOffset, 20))
		s.log.Error("postgres exited unexpectedly", "pid", s.proc.pid(), "err", s.proc.err, "log", s.logPath)
		s.wait <- err
	}
	close(s.wait)
}

// kill stops a server that failed to become usable during Start.
func (s *Server) kill() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = s.shutdown(ctx)
}

// ConnString returns a URL for pgx/v5 (and libpq) that connects as
// Superuser to database db over the unix socket; "" db means Superuser's
// default database. There is no password: see the package doc.
func (s *Server) ConnString(db string) string {
	if db == "" {
		db = Superuser
	}
	// libpq decodes %XX but not "+" in URIs, so spaces become %20.
	host := strings.ReplaceAll(url.QueryEscape(s.sockDir), "+", "%20")
	u := url.URL{Scheme: "postgres", User: url.User(Superuser), Path: "/" + db,
		RawQuery: "host=" + host + "&port=" + strconv.Itoa(SocketPort) + "&sslmode=disable"}
	return u.String()
}

// Dir returns the cluster folder in use, which differs from Options.Dir
// when the cluster was placed in the fallback folder.
func (s *Server) Dir() string { return s.dir }

// SocketDir returns the folder holding the server's unix socket.
func (s *Server) SocketDir() string { return s.sockDir }

// Wait returns a channel that receives an error if postgres exits without
// Stop having been called, and is closed once postgres has exited either
// way. So `err := <-s.Wait()` is nil after Stop. Meant for one receiver.
func (s *Server) Wait() <-chan error { return s.wait }

// Stop shuts postgres down (fast shutdown: SIGINT to the postmaster) and
// waits for it to exit, then releases the lock. If ctx ends first, it
// escalates to an immediate shutdown (SIGQUIT; the next start then runs
// crash recovery) and finally SIGKILL, so no postgres is left behind either
// way; the error then says the fast shutdown did not finish. Stop is
// idempotent: later calls return the first call's result.
func (s *Server) Stop(ctx context.Context) error {
	s.stopOnce.Do(func() {
		s.stopErr = s.shutdown(ctx)
		if s.sockMoved {
			_ = os.Remove(s.sockDir) // empty once postgres removed its socket
		}
		s.logFile.Close()
		s.lock.Close()
		s.log.Info("postgres stopped", "dir", s.dir, "err", s.stopErr)
	})
	return s.stopErr
}

func (s *Server) shutdown(ctx context.Context) error {
	s.stopping.Store(true)
	p := s.proc.cmd.Process
	_ = p.Signal(syscall.SIGINT) // fails only if it already exited
	select {
	case <-s.proc.done:
		return nil
	case <-ctx.Done():
	}
	s.log.Warn("postgres fast shutdown timed out; forcing immediate shutdown", "pid", p.Pid)
	_ = p.Signal(syscall.SIGQUIT)
	select {
	case <-s.proc.done:
	case <-time.After(10 * time.Second):
		_ = p.Kill()
		<-s.proc.done
	}
	return fmt.Errorf("pgembed: postgres fast shutdown did not finish: %w", ctx.Err())
}
