package pgembed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Superuser is the role initdb creates and ConnString connects as.
const Superuser = "flopledger"

// binaryMajor returns the major version of the postgres binary: "15", or
// "9.6" for versions before 10. postgres answers -V even as root.
func binaryMajor(ctx context.Context, binDir string) (string, error) {
	out, err := command(ctx, binDir, account{}, "postgres", "-V").Output()
	if err != nil {
		return "", fmt.Errorf("pgembed: %s -V: %w", filepath.Join(binDir, "postgres"), err)
	}
	// "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"
	_, rest, ok := strings.Cut(string(out), ") ")
	fields := strings.Fields(rest)
	if !ok || len(fields) == 0 {
		return "", fmt.Errorf("pgembed: unexpected postgres -V output %q", out)
	}
	return majorOf(fields[0]), nil
}

// majorOf keeps the parts of a version that name a major release, which is
// what PG_VERSION holds: "15.18" → "15", "9.6.24" → "9.6", "17beta1" → "17".
func majorOf(v string) string {
	parts := strings.SplitN(v, ".", 3)
	major := leadingDigits(parts[0])
	if n, err := strconv.Atoi(major); err == nil && n < 10 && len(parts) >= 2 {
		return major + "." + leadingDigits(parts[1])
	}
	return major
}

func leadingDigits(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}

// clusterMajor returns the content of dir/PG_VERSION, "" if there is none.
func clusterMajor(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "PG_VERSION"))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("pgembed: read PG_VERSION: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// initdb creates the cluster. Local (socket) connections use trust and TCP
// ones reject (see the package doc); C.UTF-8 gives byte-order sorting that
// is the same on every machine and glibc version, with UTF-8 character
// classes; where that locale is not installed, plain C is used instead.
// Without fast, initdb fsyncs its files, which a long-lived cluster needs to
// survive a power cut right after creation; -N skips that for test clusters.
//
// initdb gets SIGTERM if we die or ctx ends: it then removes what it created,
// so a half-made cluster is never left behind to fail the next start.
func initdb(ctx context.Context, binDir, dir string, a account, fast bool) error {
	var err error
	for _, locale := range []string{"C.UTF-8", "C"} {
		var out []byte
		out, err = runInitdb(ctx, binDir, dir, a, fast, locale)
		if err == nil {
			return nil
		}
		err = fmt.Errorf("pgembed: initdb %s: %w\n%s", dir, err, tailLines(out, 20))
		if !bytes.Contains(out, []byte("locale")) || ctx.Err() != nil {
			break
		}
	}
	return err
}

func runInitdb(ctx context.Context, binDir, dir string, a account, fast bool, locale string) ([]byte, error) {
	args := []string{"-D", dir, "-U", Superuser, "--auth-local=trust", "--auth-host=reject",
		"-E", "UTF8", "--locale=" + locale}
	if fast {
		args = append(args, "-N")
	}
	cmd := command(context.Background(), binDir, a, "initdb", args...)
	cmd.SysProcAttr = procAttr(a, syscall.SIGTERM)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	c, err := startChild(cmd)
	if err != nil {
		return nil, err
	}
	select {
	case <-c.done:
	case <-ctx.Done():
		_ = c.cmd.Process.Signal(syscall.SIGTERM)
		<-c.done
	}
	return out.Bytes(), c.err
}

// createDatabase creates db unless it exists. It runs on every start, not
// only after initdb, so that a start that died between initdb and here is
// completed by the next one; it costs a few milliseconds.
func createDatabase(ctx context.Context, binDir, sockDir, db string, a account) error {
	cmd := command(ctx, binDir, a, "createdb", "-w", "-h", sockDir, "-p", fmt.Sprint(SocketPort),
		"-U", Superuser, "--", db)
	out, err := cmd.CombinedOutput()
	if err != nil && !bytes.Contains(out, []byte("already exists")) {
		return fmt.Errorf("pgembed: createdb %s: %w: %s", db, err, bytes.TrimSpace(out))
	}
	return nil
}

// ready reports whether the server accepts connections on the socket.
// pg_isready does a real startup handshake; a bare connect would succeed
// while the server still answers "the database system is starting up".
func ready(ctx context.Context, binDir, sockDir string, a account) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cmd := command(ctx, binDir, a, "pg_isready", "-q", "-t", "3", "-h", sockDir, "-p", fmt.Sprint(SocketPort),
		"-U", Superuser, "-d", "postgres")
	return cmd.Run() == nil
}

// logTail returns up to n last lines written to the log file after offset,
// i.e. by the current start, to put in error messages.
func logTail(path string, offset int64, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const maxRead = 16 << 10
	if fi, err := f.Stat(); err == nil && fi.Size()-offset > maxRead {
		offset = fi.Size() - maxRead
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return ""
	}
	b, _ := io.ReadAll(f)
	return tailLines(b, n)
}

func tailLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
