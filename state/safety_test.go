package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// dirSnapshot records every entry of dir: name, type, mode, owner, and the
// bytes of regular files or the target of symlinks.
func dirSnapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(dir, n)
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		fmt.Fprintf(&b, "%s %v uid=%d ino=%d", n, fi.Mode(), st.Uid, st.Ino)
		switch {
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, " %q", data)
		case fi.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			fmt.Fprintf(&b, " -> %s", target)
		}
		b.WriteByte('\n')
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, ". %v\n", fi.Mode())
	return b.String()
}

// validHome returns a home holding a valid state with one trusted bundle.
func validHome(t *testing.T) string {
	t.Helper()
	home := newHome(t)
	mustUpdate(t, Open(home), func(s *State) error {
		_, err := s.Trust(idA, testReceipt(idA, 1))
		return err
	})
	return home
}

// rewrite replaces the state file p by f of it, indented two spaces as
// docs/state.md shows it (the reader takes any layout), so that f and the
// expected positions can name lines.
func rewrite(t *testing.T, p string, f func([]byte) []byte) {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var ind bytes.Buffer
	if err := json.Indent(&ind, data, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, f(ind.Bytes()), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestUnsafeAndMalformedStateIsNeverTouched(t *testing.T) {
	type setup func(t *testing.T, home string) (watch []string)
	statePath := func(home string) string { return filepath.Join(home, FileName) }
	lockPath := func(home string) string { return filepath.Join(home, LockName) }
	cases := []struct {
		name     string
		setup    setup
		sentinel error
		reason   string // substring of the message
		hint     string
		badPath  func(home string) string
		rootOnly bool
	}{
		{"truncated JSON", func(t *testing.T, home string) []string {
			rewrite(t, statePath(home), func(b []byte) []byte { return b[:len(b)/2] })
			return nil
		}, ErrMalformed, "truncated JSON", "mv ", statePath, false},
		{"empty file", func(t *testing.T, home string) []string {
			rewrite(t, statePath(home), func([]byte) []byte { return nil })
			return nil
		}, ErrMalformed, "truncated JSON", "mv ", statePath, false},
		{"syntax error", func(t *testing.T, home string) []string {
			rewrite(t, statePath(home), func(b []byte) []byte { return bytes.Replace(b, []byte(`"bundles"`), []byte(`bundles`), 1) })
			return nil
		}, ErrMalformed, "invalid JSON at line 4, column 3: invalid character 'b'", "mv ", statePath, false},
		{"unknown schema version", func(t *testing.T, home string) []string {
			rewrite(t, statePath(home), func(b []byte) []byte {
				return bytes.Replace(b, []byte(`"schema_version": 3`), []byte(`"schema_version": 4`), 1)
			})
			return nil
		}, ErrMalformed, "unsupported schema_version", "use the bundlectl that wrote it", statePath, false},
		{"missing schema version", func(t *testing.T, home string) []string {
			rewrite(t, statePath(home), func(b []byte) []byte {
				return bytes.Replace(b, []byte(`"schema_version": 3,`), nil, 1)
			})
			return nil
		}, ErrMalformed, "schema_version is missing", "mv ", statePath, false},
		{"unknown field", func(t *testing.T, home string) []string {
			rewrite(t, statePath(home), func(b []byte) []byte {
				return bytes.Replace(b, []byte(`"enabled": false`), []byte(`"enabled": false, "pinned": true`), 1)
			})
			return nil
		}, ErrMalformed, `unknown field "pinned"`, "mv ", statePath, false},
		{"unknown field in a receipt", func(t *testing.T, home string) []string {
			rewrite(t, statePath(home), func(b []byte) []byte {
				return bytes.Replace(b, []byte(`"content_hash": `), []byte(`"pinned": 1, "content_hash": `), 1)
			})
			return nil
		}, ErrMalformed, `unknown field "pinned" in bundles["` + idA + `"].receipt`, "mv ", statePath, false},
		{"malformed content_hash", func(t *testing.T, home string) []string {
			rewrite(t, statePath(home), func(b []byte) []byte {
				return regexp.MustCompile(`"content_hash": "[0-9a-f]+"`).ReplaceAll(b, []byte(`"content_hash": "zz"`))
			})
			return nil
		}, ErrMalformed, `field bundles["` + idA + `"].receipt.content_hash: digest: malformed`, "mv ", statePath, false},
		{"malformed reviewed_at", func(t *testing.T, home string) []string {
			rewrite(t, statePath(home), func(b []byte) []byte {
				return regexp.MustCompile(`"reviewed_at": "[^"]+"`).ReplaceAll(b, []byte(`"reviewed_at": "yesterday"`))
			})
			return nil
		}, ErrMalformed, `field bundles["` + idA + `"].receipt.reviewed_at: not an RFC 3339 time`, "mv ", statePath, false},
		{"enabled of the wrong type", func(t *testing.T, home string) []string {
			rewrite(t, statePath(home), func(b []byte) []byte {
				return bytes.Replace(b, []byte(`"enabled": false`), []byte(`"enabled": "yes"`), 1)
			})
			return nil
		}, ErrMalformed, `field bundles["` + idA + `"].enabled at line 6, column 23: got a JSON string, want a boolean`, "mv ", statePath, false},
		{"a number too large, not echoed", func(t *testing.T, home string) []string {
			rewrite(t, statePath(home), func(b []byte) []byte {
				return regexp.MustCompile(`"generation": [0-9]+`).ReplaceAll(b, []byte(`"generation": 99999999999999999999999`))
			})
			return nil
		}, ErrMalformed, `got a JSON number, want`, "mv ", statePath, false},
		{"trailing data", func(t *testing.T, home string) []string {
			rewrite(t, statePath(home), func(b []byte) []byte { return append(b, "{}"...) })
			return nil
		}, ErrMalformed, "trailing data", "mv ", statePath, false},
		{"generation beyond global", func(t *testing.T, home string) []string {
			rewrite(t, statePath(home), func(b []byte) []byte {
				return bytes.Replace(b, []byte(`"generation": 1,`+"\n  \"bundles\""), []byte(`"generation": 0,`+"\n  \"bundles\""), 1)
			})
			return nil
		}, ErrMalformed, "exceeds the global generation", "mv ", statePath, false},
		{"receipt for another bundle", func(t *testing.T, home string) []string {
			rewrite(t, statePath(home), func(b []byte) []byte {
				return bytes.Replace(b, []byte(`"bundle_id": "`+idA+`"`), []byte(`"bundle_id": "`+idB+`"`), 1)
			})
			return nil
		}, ErrMalformed, "receipt is for bundle", "mv ", statePath, false},
		{"mode 0666", func(t *testing.T, home string) []string {
			chmod(t, statePath(home), 0o666)
			return nil
		}, ErrUnsafe, "group- or world-writable (mode 0666)", "chmod 600", statePath, false},
		{"mode 0620", func(t *testing.T, home string) []string {
			chmod(t, statePath(home), 0o620)
			return nil
		}, ErrUnsafe, "group- or world-writable (mode 0620)", "chmod 600", statePath, false},
		{"symlink to a valid state file", func(t *testing.T, home string) []string {
			other := validHome(t)
			if err := os.Remove(statePath(home)); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(statePath(other), statePath(home)); err != nil {
				t.Fatal(err)
			}
			return []string{other}
		}, ErrUnsafe, "is a symlink", "mv ", statePath, false},
		{"directory in its place", func(t *testing.T, home string) []string {
			if err := os.Remove(statePath(home)); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(statePath(home), 0o700); err != nil {
				t.Fatal(err)
			}
			return nil
		}, ErrUnsafe, "is a directory", "mv ", statePath, false},
		{"fifo in its place", func(t *testing.T, home string) []string {
			if err := os.Remove(statePath(home)); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(statePath(home), 0o600); err != nil {
				t.Fatal(err)
			}
			return nil
		}, ErrUnsafe, "is not a regular file", "mv ", statePath, false},
		{"wrong owner", func(t *testing.T, home string) []string {
			if err := os.Chown(statePath(home), 4242, 4242); err != nil {
				t.Fatal(err)
			}
			return nil
		}, ErrUnsafe, "is owned by uid 4242", "chown 0", statePath, true},
		{"lock is a symlink", func(t *testing.T, home string) []string {
			target := filepath.Join(t.TempDir(), "elsewhere.lock")
			if err := os.WriteFile(target, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(lockPath(home)); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, lockPath(home)); err != nil {
				t.Fatal(err)
			}
			return []string{filepath.Dir(target)}
		}, ErrUnsafe, "is a symlink", "mv ", lockPath, false},
		{"dangling lock symlink", func(t *testing.T, home string) []string {
			target := filepath.Join(t.TempDir(), "created-through-link")
			if err := os.Remove(lockPath(home)); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, lockPath(home)); err != nil {
				t.Fatal(err)
			}
			return []string{filepath.Dir(target)}
		}, ErrUnsafe, "is a symlink", "mv ", lockPath, false},
		{"lock group-writable", func(t *testing.T, home string) []string {
			chmod(t, lockPath(home), 0o660)
			return nil
		}, ErrUnsafe, "group- or world-writable", "chmod 600", lockPath, false},
		{"lock wrong owner", func(t *testing.T, home string) []string {
			if err := os.Chown(lockPath(home), 4242, 4242); err != nil {
				t.Fatal(err)
			}
			return nil
		}, ErrUnsafe, "is owned by uid 4242", "chown 0", lockPath, true},
		{"home world-writable", func(t *testing.T, home string) []string {
			chmod(t, home, 0o777)
			return nil
		}, ErrUnsafe, "group- or world-writable (mode 0777)", "chmod go-w", func(h string) string { return h }, false},
		{"home wrong owner", func(t *testing.T, home string) []string {
			if err := os.Chown(home, 4242, 4242); err != nil {
				t.Fatal(err)
			}
			return nil
		}, ErrUnsafe, "is owned by uid 4242", "chown 0", func(h string) string { return h }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.rootOnly && os.Geteuid() != 0 {
				t.Skip("chown to another uid needs root")
			}
			home := validHome(t)
			watch := append([]string{home}, tc.setup(t, home)...)
			before := make([]string, len(watch))
			for i, d := range watch {
				before[i] = dirSnapshot(t, d)
			}
			check := func(op string, err error) {
				t.Helper()
				if !errors.Is(err, tc.sentinel) {
					t.Fatalf("%s: err = %v, want %v", op, err, tc.sentinel)
				}
				var path string
				var ue *UnsafeError
				var me *MalformedError
				switch {
				case errors.As(err, &ue):
					path = ue.Path
				case errors.As(err, &me):
					path = me.Path
				default:
					t.Fatalf("%s: %T is neither *UnsafeError nor *MalformedError", op, err)
				}
				if want := tc.badPath(home); path != want {
					t.Errorf("%s: error names %q, want %q", op, path, want)
				}
				msg := err.Error()
				for _, want := range []string{fmt.Sprintf("%q", tc.badPath(home)), tc.reason, "hint: ", tc.hint} {
					if !strings.Contains(msg, want) {
						t.Errorf("%s: message %q lacks %q", op, msg, want)
					}
				}
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, err := Open(home).Load()
				check("Load", err)
				_, err = Open(home).Update(func(s *State) error {
					t.Error("Update ran fn on unsafe state")
					s.Trust(idB, testReceipt(idB, 9))
					return nil
				})
				check("Update", err)
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Minute): // a hang, not a speed
				t.Fatal("Load/Update hung")
			}
			for i, d := range watch {
				if after := dirSnapshot(t, d); after != before[i] {
					t.Errorf("%s changed:\nbefore:\n%s\nafter:\n%s", d, before[i], after)
				}
			}
		})
	}
}

func chmod(t *testing.T, p string, m os.FileMode) {
	t.Helper()
	if err := os.Chmod(p, m); err != nil {
		t.Fatal(err)
	}
}

func TestSymlinkHomeRefused(t *testing.T) {
	real := validHome(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	before := dirSnapshot(t, real)
	for op, run := range map[string]func() error{
		"Load":   func() error { _, err := Open(link).Load(); return err },
		"Update": func() error { _, err := Open(link).Update(func(*State) error { return nil }); return err },
	} {
		var ue *UnsafeError
		if err := run(); !errors.As(err, &ue) || ue.Path != link || !strings.Contains(err.Error(), "realpath") {
			t.Errorf("%s through a symlinked home: %v", op, err)
		}
	}
	if after := dirSnapshot(t, real); after != before {
		t.Errorf("home changed through the symlink")
	}
}

// A malformed file is reported with a position and without echoing what
// it holds, and control characters from the file never reach the message.
func TestMalformedMessageEchoesNothing(t *testing.T) {
	home := newHome(t)
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	secret := "ghp_0123456789abcdefghijklmnopqrstuvwxyz"
	for _, data := range []string{
		`{"schema_version":1,"generation":1,"bundles":{"user/0123456789ab/a":{"enabled":"` + secret + `"}}}`,
		`{"schema_version":1,"generation":"` + secret + `"}`,
		`{"schema_version":1,"` + secret + "\x1b[2J" + `":1}`,
		`{"schema_version":"` + secret + `"}`,
	} {
		if err := os.WriteFile(filepath.Join(home, FileName), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Open(home).Load()
		if !errors.Is(err, ErrMalformed) {
			t.Fatalf("%s: err = %v", data, err)
		}
		if strings.Contains(err.Error(), "\x1b") {
			t.Errorf("message carries a raw escape: %q", err)
		}
		if strings.Contains(err.Error(), secret) && !strings.Contains(data, `"`+secret+"\x1b") {
			t.Errorf("message echoes a stored value: %q", err)
		}
	}
}
