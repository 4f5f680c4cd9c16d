package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/receipts"
	"github.com/gofrs/flock"
)

const (
	idA = "user/0123456789ab/alpha"
	idB = "workspace/ba9876543210/beta"
)

// testReceipt returns a valid receipt for id whose hashes derive from n.
func testReceipt(id string, n int) receipts.Receipt {
	var c, k receipts.Digest
	c[0], c[1], c[31] = byte(n), byte(n>>8), 1
	k[0], k[1], k[31] = byte(n), byte(n>>8), 2
	return receipts.Receipt{
		BundleID:       id,
		ContentHash:    c,
		CapabilityHash: k,
		Inventory:      json.RawMessage(fmt.Sprintf(`{"name":"x","n":%d,"note":"<a&b>"}`, n)),
		Snapshot:       "/home/u/.local/share/bundlectl/store/" + c.String(),
		ReviewedAt:     time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC),
	}
}

func tokenOf(id string, n int) receipts.Token { r := testReceipt(id, n); return r.Token() }

func newHome(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "home")
}

func mustUpdate(t *testing.T, st *Store, fn func(*State) error) *State {
	t.Helper()
	s, err := st.Update(fn)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	return s
}

func mustLoad(t *testing.T, st *Store) *State {
	t.Helper()
	s, err := st.Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return s
}

func perm(t *testing.T, p string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

func inode(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

func TestLoadMissingCreatesNothing(t *testing.T) {
	home := newHome(t)
	s := mustLoad(t, Open(home))
	if s.Generation() != 0 || len(s.IDs()) != 0 {
		t.Fatalf("missing state: generation %d, ids %v; want empty", s.Generation(), s.IDs())
	}
	if _, err := os.Lstat(home); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Load created %q (err %v)", home, err)
	}
	// An existing home without state.json is empty too.
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	mustLoad(t, Open(home))
	if ents, _ := os.ReadDir(home); len(ents) != 0 {
		t.Fatalf("Load created %v", ents)
	}
}

func TestUpdateCreatesOwnerOnly(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	home := filepath.Join(t.TempDir(), "a", "home")
	st := Open(home)
	mustUpdate(t, st, func(s *State) error { _, err := s.Trust(idA, testReceipt(idA, 1)); return err })
	for p, want := range map[string]os.FileMode{
		home:                              os.ModeDir | 0o700,
		filepath.Join(home, "state.json"): 0o600,
		filepath.Join(home, "state.lock"): 0o600,
	} {
		if got := perm(t, p); got != want {
			t.Errorf("%s: mode %v, want %v", p, got, want)
		}
	}
}

func TestTransitions(t *testing.T) {
	st := Open(newHome(t))
	rc := testReceipt(idA, 1)

	s := mustUpdate(t, st, func(s *State) error {
		if ch, err := s.Trust(idA, rc); err != nil || !ch {
			return fmt.Errorf("trust: %v %v", ch, err)
		}
		return nil
	})
	b, ok := s.Bundle(idA)
	if !ok || !b.Trusted() || b.Enabled || b.Generation != 1 || s.Generation() != 1 {
		t.Fatalf("after trust: %+v ok=%v global=%d", b, ok, s.Generation())
	}
	if b.Receipt.Generation != 1 || b.Receipt.Token() != rc.Token() {
		t.Fatalf("receipt not stamped: %+v", b.Receipt)
	}
	if !bytes.Equal(b.Receipt.Inventory, rc.Inventory) {
		t.Fatalf("inventory changed: %s", b.Receipt.Inventory)
	}

	steps := []struct {
		name    string
		do      func(*State) (bool, error)
		changed bool
		enabled bool
		trusted bool
	}{
		{"enable", func(s *State) (bool, error) { return s.Enable(idA) }, true, true, true},
		{"enable again", func(s *State) (bool, error) { return s.Enable(idA) }, false, true, true},
		{"revoke", func(s *State) (bool, error) { return s.Revoke(idA) }, true, true, false},
		{"revoke again", func(s *State) (bool, error) { return s.Revoke(idA) }, false, true, false},
		{"disable", func(s *State) (bool, error) { return s.Disable(idA) }, true, false, false},
		{"disable again", func(s *State) (bool, error) { return s.Disable(idA) }, false, false, false},
		{"disable unknown", func(s *State) (bool, error) { return s.Disable(idB) }, false, false, false},
		{"revoke unknown", func(s *State) (bool, error) { return s.Revoke(idB) }, false, false, false},
	}
	gen := uint64(1)
	for _, step := range steps {
		p := st.Path()
		before, _ := os.ReadFile(p)
		ino := inode(t, p)
		s := mustUpdate(t, st, func(s *State) error {
			ch, err := step.do(s)
			if err != nil {
				return err
			}
			if ch != step.changed {
				return fmt.Errorf("changed = %v, want %v", ch, step.changed)
			}
			return nil
		})
		if step.changed {
			gen++
		} else {
			after, _ := os.ReadFile(p)
			if !bytes.Equal(before, after) || inode(t, p) != ino {
				t.Errorf("%s: a no-op rewrote state.json", step.name)
			}
		}
		b, _ := s.Bundle(idA)
		if b.Generation != gen || s.Generation() != gen || b.Enabled != step.enabled || b.Trusted() != step.trusted {
			t.Errorf("%s: %+v, global %d; want generation %d enabled %v trusted %v", step.name, b, s.Generation(), gen, step.enabled, step.trusted)
		}
		if l := mustLoad(t, st); l.Generation() != s.Generation() {
			t.Errorf("%s: Load generation %d, Update returned %d", step.name, l.Generation(), s.Generation())
		}
	}

	b, _ = mustLoad(t, st).Bundle(idA)
	var actions []string
	for i, e := range b.Audit {
		actions = append(actions, string(e.Action))
		if e.Generation != uint64(i+1) {
			t.Errorf("audit[%d].generation = %d", i, e.Generation)
		}
	}
	if got, want := strings.Join(actions, ","), "trust,enable,revoke,disable"; got != want {
		t.Errorf("audit %s, want %s", got, want)
	}
	if r := b.Audit[2].Receipt; r == nil || r.Token != rc.Token() || r.Snapshot != rc.Snapshot {
		t.Errorf("revoke event does not name the revoked receipt: %+v", r)
	}
	if b.Audit[3].Receipt != nil {
		t.Errorf("disable of an untrusted bundle names a receipt: %+v", b.Audit[3].Receipt)
	}
}

func TestEnableNeedsTrust(t *testing.T) {
	st := Open(newHome(t))
	_, err := st.Update(func(s *State) error { _, err := s.Enable(idA); return err })
	var nt *NotTrustedError
	if !errors.Is(err, ErrNotTrusted) || !errors.As(err, &nt) || nt.ID != idA {
		t.Fatalf("enable untrusted: %v, want ErrNotTrusted for %q", err, idA)
	}
	// The hint runs as printed: the review of the bundle by its name.
	name := idA[strings.LastIndexByte(idA, '/')+1:]
	if want := "; hint: bundlectl review " + bundle.Operands(name); !strings.HasSuffix(err.Error(), want) || nt.Hint() != strings.TrimPrefix(want, "; hint: ") {
		t.Errorf("enable untrusted: %q (hint %q), want it to end %q", err, nt.Hint(), want)
	}
	if h := (&NotTrustedError{ID: "user/0123456789ab/-x y", Action: ActionEnable}).Hint(); h != "bundlectl review -- '-x y'" {
		t.Errorf("hint for a name that looks like an option: %q", h)
	}
	if _, err := os.Lstat(st.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a failed enable wrote state.json")
	}
}

func TestFailedFnWritesNothing(t *testing.T) {
	st := Open(newHome(t))
	mustUpdate(t, st, func(s *State) error { _, err := s.Trust(idA, testReceipt(idA, 1)); return err })
	before, _ := os.ReadFile(st.Path())
	boom := errors.New("boom")
	_, err := st.Update(func(s *State) error {
		s.Trust(idB, testReceipt(idB, 2))
		s.Enable(idA)
		return boom
	})
	if err != boom {
		t.Fatalf("Update returned %v, want the fn's error", err)
	}
	after, _ := os.ReadFile(st.Path())
	if !bytes.Equal(before, after) {
		t.Fatal("a failed fn changed state.json")
	}
}

func TestInvalidTransitions(t *testing.T) {
	bad := func(f func(*receipts.Receipt)) receipts.Receipt { r := testReceipt(idA, 1); f(&r); return r }
	cases := map[string]func(*State) (bool, error){
		"other bundle": func(s *State) (bool, error) { return s.Trust(idA, testReceipt(idB, 1)) },
		"zero content": func(s *State) (bool, error) {
			return s.Trust(idA, bad(func(r *receipts.Receipt) { r.ContentHash = receipts.Digest{} }))
		},
		"zero cap": func(s *State) (bool, error) {
			return s.Trust(idA, bad(func(r *receipts.Receipt) { r.CapabilityHash = receipts.Digest{} }))
		},
		"relative snap": func(s *State) (bool, error) {
			return s.Trust(idA, bad(func(r *receipts.Receipt) { r.Snapshot = "store/x" }))
		},
		"unclean snap": func(s *State) (bool, error) {
			return s.Trust(idA, bad(func(r *receipts.Receipt) { r.Snapshot = "/a/../b" }))
		},
		"control snap": func(s *State) (bool, error) {
			return s.Trust(idA, bad(func(r *receipts.Receipt) { r.Snapshot = "/a/\x1b[2J" }))
		},
		"bad inventory": func(s *State) (bool, error) {
			return s.Trust(idA, bad(func(r *receipts.Receipt) { r.Inventory = json.RawMessage("{") }))
		},
		"no inventory": func(s *State) (bool, error) {
			return s.Trust(idA, bad(func(r *receipts.Receipt) { r.Inventory = nil }))
		},
		"bad id":         func(s *State) (bool, error) { return s.Enable("user/xyz/alpha") },
		"dir scope":      func(s *State) (bool, error) { return s.Disable("dir/0123456789ab/alpha") },
		"bad name":       func(s *State) (bool, error) { return s.Revoke("user/0123456789ab/Alpha") },
		"dash dash name": func(s *State) (bool, error) { return s.Revoke("user/0123456789ab/a--b") },
	}
	for name, do := range cases {
		t.Run(name, func(t *testing.T) {
			st := Open(newHome(t))
			_, err := st.Update(func(s *State) error { _, err := do(s); return err })
			var ie *InvalidError
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v, want *InvalidError", err)
			}
			if _, err := os.Lstat(st.Path()); !errors.Is(err, os.ErrNotExist) {
				t.Fatal("an invalid transition wrote state.json")
			}
		})
	}
}

// The audit keeps exactly the latest AuditLimit events, so the latest
// AuditLimit receipts ever trusted are all in it.
func TestAuditBounded(t *testing.T) {
	st := Open(newHome(t))
	const n = AuditLimit + 9
	for i := 1; i <= n; i++ {
		mustUpdate(t, st, func(s *State) error { _, err := s.Trust(idA, testReceipt(idA, i)); return err })
	}
	b, _ := mustLoad(t, st).Bundle(idA)
	if len(b.Audit) != AuditLimit || b.Generation != n {
		t.Fatalf("audit len %d generation %d, want %d and %d", len(b.Audit), b.Generation, AuditLimit, n)
	}
	for i, e := range b.Audit {
		k := n - AuditLimit + 1 + i
		if e.Generation != uint64(k) || e.Receipt == nil || e.Receipt.Token != tokenOf(idA, k) {
			t.Fatalf("audit[%d] = %+v, want the receipt of trust #%d", i, e, k)
		}
	}
	if b.Receipt.Token() != tokenOf(idA, n) {
		t.Fatal("current receipt is not the latest")
	}
}

// The inventory is the exact byte string the capability hash covers; the
// file is indented for people but the bytes come back unchanged, HTML
// characters included.
func TestInventoryBytesSurvive(t *testing.T) {
	st := Open(newHome(t))
	rc := testReceipt(idA, 7)
	rc.Inventory = json.RawMessage(`{"a":["<script>","\u2028","x&y","` + "\u2028\u2029" + `"],"b":{"c":1.50}}`)
	mustUpdate(t, st, func(s *State) error { _, err := s.Trust(idA, rc); return err })
	b, _ := mustLoad(t, st).Bundle(idA)
	if !bytes.Equal(b.Receipt.Inventory, rc.Inventory) {
		t.Fatalf("inventory\n got %s\nwant %s", b.Receipt.Inventory, rc.Inventory)
	}
	if !b.Receipt.ReviewedAt.Equal(rc.ReviewedAt) {
		t.Fatalf("reviewed_at %v, want %v", b.Receipt.ReviewedAt, rc.ReviewedAt)
	}
}

// Copies returned by State do not alias it.
func TestBundleIsACopy(t *testing.T) {
	st := Open(newHome(t))
	s := mustUpdate(t, st, func(s *State) error { _, err := s.Trust(idA, testReceipt(idA, 1)); return err })
	b, _ := s.Bundle(idA)
	b.Receipt.Snapshot = "/elsewhere"
	b.Receipt.Inventory[0] = 'X'
	b.Audit[0].Receipt.Snapshot = "/elsewhere"
	b2, _ := s.Bundle(idA)
	if b2.Receipt.Snapshot == "/elsewhere" || b2.Receipt.Inventory[0] == 'X' || b2.Audit[0].Receipt.Snapshot == "/elsewhere" {
		t.Fatal("Bundle returned an alias of the state")
	}
}

func TestLockTimeout(t *testing.T) {
	old := testOnlyLockWait
	testOnlyLockWait = 300 * time.Millisecond
	defer func() { testOnlyLockWait = old }()

	home := newHome(t)
	st := Open(home)
	mustUpdate(t, st, func(s *State) error { _, err := s.Trust(idA, testReceipt(idA, 1)); return err })
	// flock locks belong to the open file description: a second open in the
	// same process conflicts like another process would.
	other := flock.New(filepath.Join(home, LockName))
	if ok, err := other.TryLock(); !ok || err != nil {
		t.Fatalf("TryLock: %v %v", ok, err)
	}
	start := time.Now()
	_, err := st.Update(func(s *State) error { t.Error("fn ran without the lock"); return nil })
	var le *LockError
	if !errors.Is(err, ErrLocked) || !errors.As(err, &le) || le.Path != filepath.Join(home, LockName) {
		t.Fatalf("Update under a held lock: %v, want ErrLocked", err)
	}
	// It waited for the lock before giving up: a timer never fires early,
	// so this lower bound holds however busy the machine is. That it gave
	// up at all is the ErrLocked above; how late is the scheduler's business.
	if d := time.Since(start); d < testOnlyLockWait {
		t.Errorf("gave up after %v, before the lock wait of %v", d, testOnlyLockWait)
	}
	if !strings.Contains(err.Error(), "state.lock") || !strings.Contains(err.Error(), "run this command again") {
		t.Errorf("message %q does not name the lock and what to do", err)
	}
	// Load does not need the lock.
	mustLoad(t, st)
	other.Unlock()
	mustUpdate(t, st, func(s *State) error { _, err := s.Enable(idA); return err })
}

// A panicking fn does not leave the lock held or the file changed.
func TestPanickingFnReleasesLock(t *testing.T) {
	old := testOnlyLockWait
	testOnlyLockWait = 300 * time.Millisecond
	defer func() { testOnlyLockWait = old }()
	st := Open(newHome(t))
	mustUpdate(t, st, func(s *State) error { _, err := s.Trust(idA, testReceipt(idA, 1)); return err })
	before, _ := os.ReadFile(st.Path())
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("no panic")
			}
		}()
		st.Update(func(s *State) error { s.Enable(idA); panic("boom") })
	}()
	if after, _ := os.ReadFile(st.Path()); !bytes.Equal(before, after) {
		t.Fatal("a panicking fn changed state.json")
	}
	mustUpdate(t, st, func(s *State) error { _, err := s.Enable(idA); return err })
}

// LoadCurrent reads the same decisions as Load and stops before the audit
// trails: a file whose only fault is in the trails is refused by Load and
// read by LoadCurrent; a fault in the decisions is refused by both. A file
// of schema 2 (trails inside the records) is read too, each trail checked
// to be an array.
func TestLoadCurrent(t *testing.T) {
	st := Open(newHome(t))
	mustUpdate(t, st, func(s *State) error {
		_, err := s.Trust(idA, testReceipt(idA, 1))
		if err == nil {
			_, err = s.Enable(idA)
		}
		return err
	})
	full := mustLoad(t, st)
	cur, err := st.LoadCurrent()
	if err != nil {
		t.Fatalf("LoadCurrent: %v", err)
	}
	a, _ := full.Bundle(idA)
	b, _ := cur.Bundle(idA)
	if len(a.Audit) != 2 || len(b.Audit) != 0 || !b.Enabled || b.Receipt == nil || b.Receipt.Token() != a.Receipt.Token() || b.Generation != a.Generation {
		t.Fatalf("LoadCurrent read %+v, Load %+v", b, a)
	}
	compact, err := os.ReadFile(st.Path())
	if err != nil {
		t.Fatal(err)
	}
	var ind bytes.Buffer
	if err := json.Indent(&ind, compact, "", "  "); err != nil {
		t.Fatal(err)
	}
	good := ind.Bytes() // indented, so that the edits below can name fields as docs/state.md shows them
	rewrite := func(old, new string) {
		t.Helper()
		if !bytes.Contains(good, []byte(old)) {
			t.Fatalf("state.json has no %s", old)
		}
		if err := os.WriteFile(st.Path(), bytes.Replace(good, []byte(old), []byte(new), 1), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Faults in the trails, made in the file as bundlectl writes it.
	for _, trail := range [][2]string{
		{`"action":"enable"`, `"action":"explode"`},  // an unknown action
		{`"action":"enable"`, `"action":"enable"}}`}, // not JSON past the records
		{`"` + idA + `":[`, `"` + idA + `":{"x":[`},  // not an array
	} {
		if !bytes.Contains(compact, []byte(trail[0])) {
			t.Fatalf("state.json has no %s", trail[0])
		}
		if err := os.WriteFile(st.Path(), bytes.Replace(compact, []byte(trail[0]), []byte(trail[1]), 1), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Load(); err == nil {
			t.Errorf("Load accepted the change %s -> %s", trail[0], trail[1])
		}
		if _, err := st.LoadCurrent(); err != nil {
			t.Errorf("LoadCurrent refused a file whose only fault is in the audit trails (%s -> %s): %v", trail[0], trail[1], err)
		}
	}
	// A key given twice before "audit" is refused by both readers.
	dup := bytes.Replace(good, []byte(`"audit": {`), []byte(`"bundles": {}, "audit": {`), 1)
	if err := os.WriteFile(st.Path(), dup, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Load(); err == nil || !strings.Contains(err.Error(), "appears twice") {
		t.Errorf("Load of a file with two bundles keys: %v", err)
	}
	if _, err := st.LoadCurrent(); err == nil || !strings.Contains(err.Error(), "appears twice") {
		t.Errorf("LoadCurrent of a file with two bundles keys: %v", err)
	}
	// One after "audit", in a file that still ends as bundlectl ends it,
	// is Load's to refuse (docs/state.md): LoadCurrent keeps to the
	// records before the trails.
	after := bytes.Replace(compact, []byte(`]}}`), []byte(`]},"bundles":{},"audit":{"x":[]}}`), 1)
	if err := os.WriteFile(st.Path(), after, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Load(); err == nil {
		t.Error("Load accepted a bundles key repeated after the trails")
	}
	if s, err := st.LoadCurrent(); err != nil {
		t.Errorf("LoadCurrent: %v", err)
	} else if rec, _ := s.Bundle(idA); !rec.Enabled {
		t.Error("LoadCurrent did not keep to the records before the trails")
	}
	// A truncated file is refused, wherever it was cut (the newline at
	// the end is no part of the JSON).
	for _, cut := range []int{2, 3, len(compact) / 3, len(compact) * 2 / 3} {
		if err := os.WriteFile(st.Path(), compact[:len(compact)-cut], 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := st.LoadCurrent(); err == nil {
			t.Errorf("LoadCurrent accepted the file without its last %d bytes", cut)
		}
	}
	for _, bad := range [][2]string{
		{`"enabled": true`, `"enabled": "yes"`},             // a decision of the wrong type
		{`"generation": 2,`, `"generation": 1,`},            // the global generation below the bundle's
		{`"enabled": true`, `"enabled": true, "pinned": 1`}, // an unknown field
		{`"schema_version": 3`, `"schema_version": 4`},
	} {
		rewrite(bad[0], bad[1])
		if _, err := st.LoadCurrent(); err == nil {
			t.Errorf("LoadCurrent accepted the change %s -> %s", bad[0], bad[1])
		}
	}

	// Schema 2, as an earlier bundlectl wrote it.
	v2 := []byte(`{"schema_version":2,"generation":2,"bundles":{"` + idA + `":{"enabled":true,"receipt":null,"generation":2,"audit":[` +
		`{"action":"enable","time":"2026-01-01T00:00:00Z","generation":1,"receipt":null},{"action":"disable","time":"2026-01-01T00:00:00Z","generation":2,"receipt":null}]}}}`)
	must := func(data []byte, wantFull, wantCurrent bool) {
		t.Helper()
		if err := os.WriteFile(st.Path(), data, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Load(); (err == nil) != wantFull {
			t.Errorf("Load of %s: %v", data, err)
		}
		if _, err := st.LoadCurrent(); (err == nil) != wantCurrent {
			t.Errorf("LoadCurrent of %s: %v", data, err)
		}
	}
	must(v2, true, true)
	must(bytes.Replace(v2, []byte(`"action":"enable"`), []byte(`"action":"explode"`), 1), false, true)
	must(bytes.Replace(v2, []byte(`"audit":[`), []byte(`"audit":{"x":[`), 1), false, false)
}

// TestUpdateHomeRemovedBeforeLock: a failed first install in the same
// fresh home removes it (it held only the fetch lock) after Update made it
// and before Update locked: Update makes it again and its change is kept.
func TestUpdateHomeRemovedBeforeLock(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	removed := false
	testOnlyHomeEnsured = func() {
		if !removed {
			removed = true
			if err := os.Remove(home); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Cleanup(func() { testOnlyHomeEnsured = nil })
	st := Open(home)
	mustUpdate(t, st, func(s *State) error { _, err := s.Trust(idA, testReceipt(idA, 1)); return err })
	s, err := st.Load()
	if err != nil {
		t.Fatal(err)
	}
	if rec, ok := s.Bundle(idA); !ok || !rec.Trusted() {
		t.Fatalf("the trust was lost: %+v", rec)
	}
}
