package pgembed

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeBin creates empty executables: FindBinaries only checks that they
// exist and are executable, never runs them.
func fakeBin(t *testing.T, dir string, names ...string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var all = []string{"initdb", "postgres", "pg_ctl"}

func TestFindBinariesOrder(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	hint := fakeBin(t, filepath.Join(root, "hint"), all...)
	onPath := fakeBin(t, filepath.Join(root, "path"), all...)
	partial := fakeBin(t, filepath.Join(root, "partial"), "initdb") // no postgres, pg_ctl

	// A PATH folder of symlinks, like /usr/local/bin on this machine.
	links := filepath.Join(root, "links")
	if err := os.Mkdir(links, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(onPath, "initdb"), filepath.Join(links, "initdb")); err != nil {
		t.Fatal(err)
	}

	cfgBin := fakeBin(t, filepath.Join(root, "cfg", "bin"), all...)
	cfgPath := filepath.Join(root, "cfgpath")
	fakeBin(t, cfgPath)
	script := "#!/bin/sh\necho " + cfgBin + "\n"
	if err := os.WriteFile(filepath.Join(cfgPath, "pg_config"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}

	lib := filepath.Join(root, "lib")
	for _, v := range []string{"9.6", "10", "15"} {
		fakeBin(t, filepath.Join(lib, v, "bin"), all...)
	}
	fakeBin(t, filepath.Join(lib, "16", "bin"), "initdb")   // incomplete: skipped
	fakeBin(t, filepath.Join(lib, "common", "bin"), all...) // not a version
	oldLib := filepath.Join(root, "oldlib")
	for _, v := range []string{"9.6", "10"} {
		fakeBin(t, filepath.Join(oldLib, v, "bin"), all...)
	}
	local := fakeBin(t, filepath.Join(root, "local", "bin"), all...)
	none := filepath.Join(root, "none")

	tests := []struct {
		name string
		f    finder
		hint string
		want string
	}{
		{"hint first", finder{path: onPath, libRoot: lib, local: local}, hint, hint},
		{"PATH before pg_config", finder{path: onPath + ":" + cfgPath, libRoot: lib, local: local}, "", onPath},
		{"relative PATH entries skipped", finder{path: ".:" + onPath, libRoot: lib, local: local}, "", onPath},
		{"PATH symlink resolved", finder{path: links, libRoot: lib, local: local}, "", onPath},
		{"incomplete PATH folder skipped", finder{path: partial + ":" + cfgPath, libRoot: lib, local: local}, "", cfgBin},
		{"pg_config before lib", finder{path: cfgPath, libRoot: lib, local: local}, "", cfgBin},
		{"newest complete version", finder{libRoot: lib, local: local}, "", filepath.Join(lib, "15", "bin")},
		{"10 newer than 9.6", finder{libRoot: oldLib, local: local}, "", filepath.Join(oldLib, "10", "bin")},
		{"local last", finder{libRoot: none, local: local}, "", local},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.f.find(tc.hint)
			if err != nil || got != tc.want {
				t.Errorf("find(%q) = %q, %v; want %q", tc.hint, got, err, tc.want)
			}
		})
	}

	t.Run("bad hint is an error", func(t *testing.T) {
		_, err := finder{path: onPath}.find(partial)
		if err == nil || !strings.Contains(err.Error(), partial) {
			t.Errorf("err = %v; want an error naming %s", err, partial)
		}
	})
}

func TestFindBinariesNotInstalled(t *testing.T) {
	t.Parallel()
	none := t.TempDir()
	_, err := finder{path: none, libRoot: none, local: none}.find("")
	if !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("err = %v; want ErrNotInstalled", err)
	}
	for _, want := range []string{"apt-get install postgresql", "DATABASE_URL", "docker compose up"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
}

func TestFindBinariesOnThisMachine(t *testing.T) {
	t.Parallel()
	dir, err := FindBinaries("")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("bin dir: %s", dir)
}

func TestMajorOf(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"15.18": "15", "16": "16", "9.6.24": "9.6", "17beta1": "17", "10.1": "10"} {
		if got := majorOf(in); got != want {
			t.Errorf("majorOf(%q) = %q; want %q", in, got, want)
		}
	}
}
