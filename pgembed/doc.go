// Package pgembed runs a private PostgreSQL server from the binaries that are
// already installed on the machine. `flopledger serve` uses it when no
// DATABASE_URL is set, and the test harness uses it for throwaway clusters.
//
// The server is reachable only through a unix socket; it never opens a TCP
// port, so it cannot clash with, or be mistaken for, a system server on
// 127.0.0.1:5432. Authentication is "trust" for local (socket) connections
// and "reject" for TCP: this is safe because the socket lives in a folder of
// mode 0700 owned by the account that runs postgres, so only that account
// (and root) can connect at all. The socket's port number is fixed at
// [SocketPort]; it only names the socket file. It is deliberately not 5432,
// so that a connection string that lost its host= parameter fails loudly
// instead of silently reaching the system server's default socket.
//
// PostgreSQL refuses to run as root. When the process runs as root, initdb,
// postgres and the client tools run as an unprivileged account (Options.User,
// default "postgres"). That account must be able to traverse every parent of
// the cluster folder; when it cannot (for example a folder under /root), the
// cluster is placed under Options.FallbackDir (default /var/lib/flopledger)
// in a folder named after a hash of the requested path, so it survives
// restarts, and the new location is logged. Permissions on the requested
// path are never loosened.
//
// Layout, for a requested cluster folder D:
//
//	D                 the cluster (PGDATA), owner = account, mode 0700; also the socket folder
//	D/../postgres.log the server's stdout and stderr, appended
//	D/../postgres.lock flock held while a Server runs; holds the owner's pid
//
// One cluster per parent folder, then. When D plus the socket file name
// exceeds the 107-byte limit on unix socket paths, the socket goes to a short
// folder under os.TempDir() instead (see [Server.ConnString]).
//
// For a throwaway cluster when running as root, create its parent with
// os.MkdirTemp and chmod it 0755 (MkdirTemp makes it 0700, which the account
// cannot traverse, and the cluster would go to the fallback folder), then
// remove the parent after Stop.
//
// Lifecycle: [Start] takes the lock, runs initdb on first use, stops any
// postmaster left behind on the folder by a killed predecessor, starts
// postgres as a direct child and waits until it accepts connections, then
// creates Options.Database if missing. [Server.Stop] does a fast shutdown. If
// our process is SIGKILLed, the kernel sends postgres SIGINT (Pdeathsig) and
// the lock is released with our file descriptors.
package pgembed
