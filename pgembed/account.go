package pgembed

import (
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// account is the identity initdb, postgres and the client tools run as.
type account struct {
	name     string
	uid, gid uint32
	groups   []uint32 // supplementary groups, primary included
	home     string
	// switchTo is true when we are root and must drop to this account,
	// because initdb and postgres refuse to run as root.
	switchTo bool
}

// lookupAccount returns the current identity when not root, and the named
// unprivileged account when root.
func lookupAccount(name string) (account, error) {
	if os.Geteuid() != 0 {
		a := account{uid: uint32(os.Geteuid()), gid: uint32(os.Getegid())}
		if u, err := user.Current(); err == nil {
			a.name, a.home = u.Username, u.HomeDir
		}
		gs, _ := os.Getgroups()
		for _, g := range append(gs, os.Getegid()) {
			a.groups = append(a.groups, uint32(g))
		}
		return a, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		return account{}, fmt.Errorf("pgembed: running as root, and PostgreSQL refuses to run as root, "+
			"so it must run as an unprivileged account, but account %q does not exist "+
			"(installing the postgresql package creates \"postgres\"; or set the account name): %w", name, err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return account{}, fmt.Errorf("pgembed: account %q has non-numeric uid %q or gid %q", name, u.Uid, u.Gid)
	}
	if uid == 0 {
		return account{}, fmt.Errorf("pgembed: account %q is root; PostgreSQL needs an unprivileged account", name)
	}
	a := account{name: name, uid: uint32(uid), gid: uint32(gid), home: u.HomeDir, switchTo: true}
	a.groups = []uint32{a.gid}
	ids, err := u.GroupIds()
	if err != nil {
		return account{}, fmt.Errorf("pgembed: groups of account %q: %w", name, err)
	}
	for _, id := range ids {
		if g, err := strconv.ParseUint(id, 10, 32); err == nil && !slices.Contains(a.groups, uint32(g)) {
			a.groups = append(a.groups, uint32(g))
		}
	}
	return a, nil
}

// credential is what exec.Cmd needs to run as the account; nil means "as we are".
func (a account) credential() *syscall.Credential {
	if !a.switchTo {
		return nil
	}
	return &syscall.Credential{Uid: a.uid, Gid: a.gid, Groups: a.groups}
}

// canSearch applies the kernel's permission check for search (x) on a folder
// with the given mode and owner: the owner bits if the account owns it, else
// the group bits if it is in the folder's group, else the other bits. POSIX
// ACLs are ignored; they are rare on the paths concerned, and with an ACL the
// group bits hold the ACL mask, which errs on the side of "not traversable".
func canSearch(mode fs.FileMode, ouid, ogid uint32, a account) bool {
	switch {
	case ouid == a.uid:
		return mode&0o100 != 0
	case slices.Contains(a.groups, ogid):
		return mode&0o010 != 0
	default:
		return mode&0o001 != 0
	}
}

// traversable reports an error naming the first folder on the way to dir
// (dir included) that the account may not search. Both the path as written
// and its symlink-resolved form are checked, since the kernel walks the one
// and ends up in the other.
func traversable(dir string, a account) error {
	paths := []string{dir}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		paths = append(paths, real)
	}
	for _, p := range paths {
		for _, d := range ancestors(p) {
			fi, err := os.Stat(d)
			if err != nil {
				return err
			}
			st, ok := fi.Sys().(*syscall.Stat_t)
			if !ok || !fi.IsDir() || !canSearch(fi.Mode().Perm(), st.Uid, st.Gid, a) {
				return fmt.Errorf("%s (mode %v, owner uid %d) is not traversable by account %s (uid %d)",
					d, fi.Mode().Perm(), ownerUID(fi), a.name, a.uid)
			}
		}
	}
	return nil
}

// ancestors lists "/", "/a", "/a/b" for the clean absolute path "/a/b".
func ancestors(p string) []string {
	out := []string{"/"}
	cur := "/"
	for _, part := range strings.Split(strings.Trim(p, "/"), "/") {
		if part == "" {
			continue
		}
		cur = filepath.Join(cur, part)
		out = append(out, cur)
	}
	return out
}

func ownerUID(fi fs.FileInfo) uint32 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Uid
	}
	return 0
}
