package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flopledger/flopledger/pgembed"
)

// TestMain lets a test run the real binary as a child process: the test
// binary re-executes itself with FLOPLEDGER_TEST_MAIN=1 and the arguments in
// FLOPLEDGER_TEST_ARGS, and then behaves exactly like `flopledger ARGS`. That
// is how the signal and kill -9 tests get a process of their own.
func TestMain(m *testing.M) {
	if os.Getenv("FLOPLEDGER_TEST_MAIN") == "1" {
		var args []string
		if err := json.Unmarshal([]byte(os.Getenv("FLOPLEDGER_TEST_ARGS")), &args); err != nil {
			panic(err)
		}
		os.Args = append([]string{"flopledger"}, args...)
		main()
		return
	}
	os.Exit(m.Run())
}

func TestConfigRefusesBadValues(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		env   map[string]string
		args  []string
		wants []string // every one must be named in the message
	}{
		{"bad address", map[string]string{"FLOPLEDGER_ADDR": "8080"}, nil, []string{"FLOPLEDGER_ADDR", "host:port"}},
		{"bad port", nil, []string{"--addr", "127.0.0.1:99999"}, []string{"FLOPLEDGER_ADDR", "--addr", "99999"}},
		{"bad level and format together", map[string]string{"FLOPLEDGER_LOG_LEVEL": "loud", "FLOPLEDGER_LOG_FORMAT": "xml"}, nil,
			[]string{"FLOPLEDGER_LOG_LEVEL", "FLOPLEDGER_LOG_FORMAT"}},
		{"bad boolean", map[string]string{"FLOPLEDGER_AUTO_MIGRATE": "maybe"}, nil, []string{"FLOPLEDGER_AUTO_MIGRATE", "true or false"}},
		{"bad duration", map[string]string{"FLOPLEDGER_SHUTDOWN_TIMEOUT": "-1s"}, nil, []string{"FLOPLEDGER_SHUTDOWN_TIMEOUT"}},
		{"database url is never echoed", map[string]string{"DATABASE_URL": "mysql:secretpw"}, nil, []string{"DATABASE_URL", "(hidden)"}},
		{"stray argument", nil, []string{"extra"}, []string{`"extra"`}},
		{"bad trusted proxy", map[string]string{"FLOPLEDGER_TRUSTED_PROXIES": "10.0.0.0/8, proxy.local"}, nil, []string{"FLOPLEDGER_TRUSTED_PROXIES", `"proxy.local"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			code := run(context.Background(), append([]string{"serve"}, tc.args...), func(k string) string { return tc.env[k] }, &out, &errb)
			if code != 2 {
				t.Fatalf("exit %d, want 2; stderr: %s", code, errb.String())
			}
			for _, w := range tc.wants {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("message does not name %q:\n%s", w, errb.String())
				}
			}
			if strings.Contains(errb.String(), "secretpw") {
				t.Errorf("a secret was printed: %s", errb.String())
			}
		})
	}
}

func TestConfigFlagsOverrideEnv(t *testing.T) {
	t.Parallel()
	env := map[string]string{"FLOPLEDGER_ADDR": "127.0.0.1:1", "FLOPLEDGER_LOG_LEVEL": "debug"}
	c, err := loadConfig("serve", []string{"--addr", "127.0.0.1:2"}, func(k string) string { return env[k] }, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:2" || c.LogLevel.String() != "DEBUG" || c.DataDir == "" || !c.AutoMigrate {
		t.Fatalf("got %+v", c)
	}
}

func TestVersionAndUnknownCommand(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"version"}, os.Getenv, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "flopledger ") {
		t.Fatalf("version: %d %q", code, out.String())
	}
	if code := run(context.Background(), []string{"frobnicate"}, os.Getenv, &out, &errb); code != 2 || !strings.Contains(errb.String(), `unknown command "frobnicate"`) {
		t.Fatalf("unknown command: %d %q", code, errb.String())
	}
}

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitStatus polls url until it answers want, or fails the test after
// limit. It returns the body of the answer.
func waitStatus(t *testing.T, url string, want int, limit time.Duration) string {
	t.Helper()
	start := time.Now()
	client := &http.Client{Timeout: 5 * time.Second}
	last := "no answer"
	for time.Since(start) < limit {
		resp, err := client.Get(url)
		if err == nil {
			var b bytes.Buffer
			_, _ = b.ReadFrom(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == want {
				return b.String()
			}
			last = resp.Status + " " + b.String()
		} else {
			last = err.Error()
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s did not answer %d within %s; last: %s", url, want, limit, last)
	return ""
}

// tempDataDir makes a data dir that the unprivileged PostgreSQL account can
// traverse when the tests run as root (t.TempDir is 0700).
func tempDataDir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	// t.TempDir is DIR/NNN inside a per-test DIR; both are ours to open up.
	for _, p := range []string{filepath.Dir(d), d} {
		if err := os.Chmod(p, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// startTestDB starts a throwaway PostgreSQL for a test and returns its URL.
func startTestDB(t *testing.T) string {
	t.Helper()
	srv, err := pgembed.Start(context.Background(), pgembed.Options{Dir: filepath.Join(tempDataDir(t), "pg"), Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop(context.Background()) })
	return srv.ConnString("flopledger")
}

func TestExtraChannelsAndSchedules(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"FLOPLEDGER_SMTP_HOST": "127.0.0.1", "FLOPLEDGER_SMTP_TLS": "none", "FLOPLEDGER_SMTP_TO": "cfo@example.com",
		"FLOPLEDGER_CHANNELS":  `[{"name": "care-mail", "kind": "email", "to": ["care@example.com"]}, {"name": "care-hook", "kind": "webhook", "url": "http://127.0.0.1:9/h", "secret": "0123456789abcdef0123"}]`,
		"FLOPLEDGER_SCHEDULES": `[{"name": "care-monthly", "spec": "0 7 1 * *", "group_by": "tag:team", "channels": ["care-mail", "care-hook"]}]`,
	}
	c, err := loadConfig("serve", nil, func(k string) string { return env[k] }, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	chans, err := channels(c)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ch := range chans {
		names = append(names, ch.Name()+"/"+ch.Kind())
	}
	if strings.Join(names, " ") != "email/email care-mail/email care-hook/webhook" {
		t.Fatalf("channels %v", names)
	}
	sched := schedules(c)
	if len(sched) != 2 || sched[1].GroupBy != "tag:team" || strings.Join(sched[1].Channels, ",") != "care-mail,care-hook" {
		t.Fatalf("schedules %+v", sched)
	}
	env["FLOPLEDGER_CHANNELS"] = `[{"name": "email", "kind": "fax"}]`
	if _, err := loadConfig("serve", nil, func(k string) string { return env[k] }, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "FLOPLEDGER_CHANNELS") || strings.Contains(err.Error(), "fax") {
		t.Fatalf("a bad channel list must be refused by name without echoing it: %v", err)
	}
}

// TestBooleanFlagsStandAlone: `serve --demo` (what make run uses) needs no
// value; `--demo=false` and a bad value behave as expected.
func TestBooleanFlagsStandAlone(t *testing.T) {
	t.Parallel()
	none := func(string) string { return "" }
	c, err := loadConfig("serve", []string{"--demo", "--addr", "127.0.0.1:9"}, none, &bytes.Buffer{})
	if err != nil || !c.Demo || c.Addr != "127.0.0.1:9" {
		t.Fatalf("--demo: %+v %v", c.Demo, err)
	}
	c, err = loadConfig("serve", []string{"--demo=false", "--auto-migrate=false"}, func(k string) string { return map[string]string{"FLOPLEDGER_DEMO": "true"}[k] }, &bytes.Buffer{})
	if err != nil || c.Demo || c.AutoMigrate {
		t.Fatalf("--demo=false over the environment: %+v %v", c, err)
	}
	if _, err := loadConfig("serve", []string{"--demo=perhaps"}, none, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "FLOPLEDGER_DEMO") {
		t.Fatalf("a bad boolean: %v", err)
	}
}
