package sources

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
)

// testRepo is a real git repository with a work tree, made with the real
// git binary.
type testRepo struct {
	t   *testing.T
	dir string
}

func newTestRepo(t *testing.T) *testRepo {
	t.Helper()
	r := &testRepo{t: t, dir: filepath.Join(t.TempDir(), "repo")}
	r.git("init", "-q", "-b", "main", r.dir)
	return r
}

// git runs the real git for test setup, isolated from the developer's
// configuration.
func (r *testRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"}, args...)...)
	if r.dir != "" {
		if _, err := os.Stat(r.dir); err == nil {
			cmd.Dir = r.dir
		}
	}
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *testRepo) write(rel, content string, mode os.FileMode) {
	r.t.Helper()
	writeFile(r.t, filepath.Join(r.dir, rel), content, mode)
}

func (r *testRepo) commit(msg string) string {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

func (r *testRepo) url() string { return "file://" + r.dir }

func writeFile(t *testing.T, p, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// fetchDirs lists what a fetch left in parent.
func leftovers(t *testing.T, parent string) []string {
	t.Helper()
	ents, err := os.ReadDir(parent)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// mustFail fetches q, expects an error wrapping want whose text contains
// every string in has, and checks that nothing was left behind.
func mustFail(t *testing.T, q Request, opts Options, want error, has ...string) error {
	t.Helper()
	parent := filepath.Join(t.TempDir(), "tmp")
	res, err := Fetch(context.Background(), parent, q, opts)
	if err == nil {
		t.Fatalf("Fetch(%+v) succeeded (%s); want an error wrapping %v", q, res.Source, want)
	}
	if !errors.Is(err, want) {
		t.Fatalf("Fetch(%+v) = %v; want an error wrapping %v", q, err, want)
	}
	for _, h := range has {
		if !strings.Contains(err.Error(), h) {
			t.Errorf("error %q does not contain %q", err, h)
		}
	}
	if l := leftovers(t, parent); len(l) != 0 {
		t.Errorf("the failed fetch left %v in %s", l, parent)
	}
	return err
}

func mustFetch(t *testing.T, q Request, opts Options) *Result {
	t.Helper()
	parent := filepath.Join(t.TempDir(), "tmp")
	res, err := Fetch(context.Background(), parent, q, opts)
	if err != nil {
		t.Fatalf("Fetch(%+v): %v", q, err)
	}
	if l := leftovers(t, parent); len(l) != 1 || filepath.Join(parent, l[0]) != res.Dir {
		t.Errorf("parent holds %v; want only the result %s", l, res.Dir)
	}
	if err := res.Source.Validate(); err != nil {
		t.Errorf("result source %s does not validate: %v", res.Source, err)
	}
	return res
}

// listing describes a tree: one line per entry, "d path", "f path
// content", "x path content" or "l path -> target", sorted.
func listing(t *testing.T, root string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			tg, _ := os.Readlink(p)
			lines = append(lines, "l "+rel+" -> "+tg)
		case fi.IsDir():
			if fi.Mode().Perm() != 0o755 {
				t.Errorf("%s: directory mode %v, want 0755", rel, fi.Mode().Perm())
			}
			lines = append(lines, "d "+rel)
		default:
			data, _ := os.ReadFile(p)
			k := "f"
			switch fi.Mode().Perm() {
			case 0o755:
				k = "x"
			case 0o644:
			default:
				t.Errorf("%s: file mode %v, want 0644 or 0755", rel, fi.Mode().Perm())
			}
			lines = append(lines, k+" "+rel+" "+strings.ReplaceAll(string(data), "\n", `\n`))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func checkListing(t *testing.T, root, want string) {
	t.Helper()
	if got := listing(t, root); got != strings.TrimSpace(want) {
		t.Errorf("fetched tree:\n%s\nwant:\n%s", got, strings.TrimSpace(want))
	}
}

// archive members for test archives.
type tmember struct {
	name     string
	typ      byte
	body     string
	mode     int64
	linkname string
}

func makeTarGz(t *testing.T, p string, members []tmember) string {
	t.Helper()
	data := tarGzBytes(members)
	writeFile(t, p, string(data), 0o644)
	return sha(data)
}

func makeZip(t *testing.T, p string, members []tmember) string {
	t.Helper()
	data := zipBytes(members)
	writeFile(t, p, string(data), 0o644)
	return sha(data)
}

// tarGzBytes builds a .tar.gz of members; it panics on a member the tar
// writer refuses (a test bug).
func tarGzBytes(members []tmember) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, m := range members {
		typ := m.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		mode := m.mode
		if mode == 0 {
			mode = 0o644
		}
		h := &tar.Header{Name: m.name, Typeflag: typ, Mode: mode, Linkname: m.linkname, Format: tar.FormatPAX}
		if typ == tar.TypeReg {
			h.Size = int64(len(m.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			panic(err)
		}
		if typ == tar.TypeReg {
			tw.Write([]byte(m.body))
		}
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// zipBytes builds a .zip of members.
func zipBytes(members []tmember) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range members {
		h := &zip.FileHeader{Name: m.name, Method: zip.Deflate}
		mode := os.FileMode(m.mode)
		if mode == 0 {
			mode = 0o644
		}
		switch m.typ {
		case tar.TypeDir:
			mode |= os.ModeDir
		case tar.TypeSymlink:
			mode |= os.ModeSymlink
		case tar.TypeChar:
			mode |= os.ModeDevice | os.ModeCharDevice
		}
		h.SetMode(mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			panic(err)
		}
		w.Write([]byte(m.body + m.linkname))
	}
	zw.Close()
	return buf.Bytes()
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// smallLimits keeps bound tests fast.
func smallLimits() bundle.Limits {
	return bundle.Limits{MaxEntries: 10, MaxTotalBytes: 100, MaxFileBytes: 50, MaxDepth: 3, MaxPathBytes: 40}
}
