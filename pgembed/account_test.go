package pgembed

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCanSearch(t *testing.T) {
	t.Parallel()
	a := account{name: "pg", uid: 101, gid: 104, groups: []uint32{104, 200}}
	tests := []struct {
		name       string
		mode       fs.FileMode
		ouid, ogid uint32
		want       bool
	}{
		{"owner x", 0o700, 101, 0, true},
		{"owner bits rule even if others may", 0o077, 101, 0, false},
		{"primary group x", 0o710, 0, 104, true},
		{"supplementary group x", 0o710, 0, 200, true},
		{"group bits rule even if others may", 0o701, 0, 104, false},
		{"other x", 0o701, 0, 0, true},
		{"root-only folder", 0o700, 0, 0, false},
		{"group x but not our group", 0o770, 0, 0, false},
	}
	for _, tc := range tests {
		if got := canSearch(tc.mode, tc.ouid, tc.ogid, a); got != tc.want {
			t.Errorf("%s: canSearch(%v, %d, %d) = %v; want %v", tc.name, tc.mode, tc.ouid, tc.ogid, got, tc.want)
		}
	}
}

func TestAncestors(t *testing.T) {
	t.Parallel()
	got := ancestors("/var/lib/x")
	want := []string{"/", "/var", "/var/lib", "/var/lib/x"}
	if !slices.Equal(got, want) {
		t.Errorf("ancestors = %v; want %v", got, want)
	}
}

func TestFallbackPath(t *testing.T) {
	t.Parallel()
	got := fallbackPath(DefaultFallbackDir, "/root/.local/share/flopledger/pg")
	again := fallbackPath(DefaultFallbackDir, "/root/.local/share/flopledger/pg")
	other := fallbackPath(DefaultFallbackDir, "/root/other/pg")
	if got != again || got == other {
		t.Errorf("fallbackPath not deterministic per folder: %s %s %s", got, again, other)
	}
	hash := strings.TrimSuffix(strings.TrimPrefix(got, "/var/lib/flopledger/"), "/pg")
	if len(hash) != 16 || strings.Trim(hash, "0123456789abcdef") != "" {
		t.Errorf("fallbackPath = %s; want /var/lib/flopledger/<16 hex>/pg", got)
	}
}

// TestTraversable checks real folders against the real postgres account.
func TestTraversable(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("the account switch, and so this check, happens only as root")
	}
	a, err := lookupAccount("postgres")
	if err != nil {
		t.Fatal(err)
	}
	private := t.TempDir() // os.MkdirTemp makes it 0700, owned by root
	if err := traversable(private, a); err == nil {
		t.Errorf("%s (0700 root) reported traversable by postgres", private)
	}
	shared := sharedDir(t)
	deep := filepath.Join(shared, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := traversable(deep, a); err != nil {
		t.Errorf("traversable(%s) = %v; want nil", deep, err)
	}
	if err := os.Chmod(filepath.Join(shared, "a"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := traversable(deep, a); err == nil || !strings.Contains(err.Error(), filepath.Join(shared, "a")+" ") {
		t.Errorf("traversable with a 0750 root:root folder = %v; want an error naming it", err)
	}
	// A symlink into a private folder is judged by where it leads.
	link := filepath.Join(shared, "link")
	if err := os.Symlink(private, link); err != nil {
		t.Fatal(err)
	}
	if err := traversable(link, a); err == nil {
		t.Errorf("symlink to a private folder reported traversable")
	}
}
