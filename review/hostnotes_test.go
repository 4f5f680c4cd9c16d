package review

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/rogpeppe/go-internal/txtar"
)

// secHostNotes is the section of a host-notes vector that holds the
// host_notes review --json gives for the bundle of the archive's files.
const secHostNotes = ":host_notes"

// TestHostNotesVectors: each archive of testdata/hostnotes is a bundle,
// read by the real readers, and the host_notes its review --json must
// give (go test -update writes them). Then the review's text is held to
// the notes: every row in which it says how a host treats a part (a
// matcher a host ignores, the shell it runs a hook with, a host's own
// timeout, Gemini CLI's sequential group, a hook url's name resolved when
// it runs, Codex's MCP timeouts, Gemini CLI's credentials and "trust", a
// field Claude Code ignores in an agent, a network host no endpoint
// reaches and why) has its notes, so a harness reading review --json
// misses nothing the text says about hosts.
func TestHostNotesVectors(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "hostnotes", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no host-notes vectors: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			materialize(t, dir, a)
			b := bundle.Load(dir, bundle.ScopeWorkspace, bundle.Limits{})
			if b.Rejected() {
				t.Fatalf("the readers reject the vector: %v", b.Report.Findings)
			}
			rv, err := New(b)
			if err != nil {
				t.Fatal(err)
			}
			var js, human bytes.Buffer
			if err := RenderJSON(&js, rv); err != nil {
				t.Fatal(err)
			}
			if err := Render(&human, rv, RenderOptions{}); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				HostNotes json.RawMessage `json:"host_notes"`
			}
			if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := json.Indent(&got, doc.HostNotes, "", "  "); err != nil {
				t.Fatal(err)
			}
			got.WriteByte('\n')
			want, _ := section(a, secHostNotes)
			if *update {
				setSection(a, secHostNotes, got.String())
				if err := os.WriteFile(file, txtar.Format(a), 0o644); err != nil {
					t.Fatal(err)
				}
			} else if got.String() != want {
				t.Errorf("host_notes differ from %s's %s section (go test -update rewrites it); got:\n%s", file, secHostNotes, got.String())
			}
			var notes []HostNote
			if err := json.Unmarshal(doc.HostNotes, &notes); err != nil {
				t.Fatal(err)
			}
			checkNotesCoverText(t, human.String(), notes)
		})
	}
}

// humanHostRows are the rows in which the review's text says how a host
// treats a part, each with the fact of the notes that must say it too.
// A row stands for one part (a hook, a server, an agent's field).
var humanHostRows = []struct {
	fact string
	row  *regexp.Regexp
}{
	{NoteMatcherIgnored, regexp.MustCompile(`(?m)^  \d+\. on .*ignores? (it|the matcher) `)},
	{NoteShell, regexp.MustCompile(`(?m)^ +\(run as `)},
	{NoteTimeoutAsWritten, regexp.MustCompile(`(?m)^ +timeout +.*the host waits `)},
	{NoteSequential, regexp.MustCompile(`(?m)^ +sequential +`)},
	{NoteAddressAtRun, regexp.MustCompile(`(?m)^ +address +`)},
	{NotePostedAt, regexp.MustCompile(`(?m)^ +posted at +`)},
	{NoteCodexTimeouts, regexp.MustCompile(`(?m)^ +timeout +(Codex: )?start `)},
	{NoteSendsCredentials, regexp.MustCompile(`(?m)^ +auth +`)},
	{NoteTrust, regexp.MustCompile(`(?m)^ +trust +`)},
	{NoteIgnoredField, regexp.MustCompile(`\(Claude Code ignores it in a plugin agent\)`)},
}

// checkNotesCoverText fails when the text has a host row that no note
// says, or notes of a fact the text never shows (no_http_hooks aside: the
// text names the hosts that could post, the notes say why the others do
// not).
func checkNotesCoverText(t *testing.T, human string, notes []HostNote) {
	t.Helper()
	parts := map[string]map[string]bool{} // fact -> part/name
	for _, n := range notes {
		if parts[n.Fact] == nil {
			parts[n.Fact] = map[string]bool{}
		}
		key := n.Part + "/" + n.Name
		if n.Fact == NoteIgnoredField {
			key += "/" + n.Text
		}
		parts[n.Fact][key] = true
	}
	for _, r := range humanHostRows {
		if rows, noted := len(r.row.FindAllStringIndex(human, -1)), len(parts[r.fact]); rows != noted {
			t.Errorf("the review shows %d row(s) of %s, host_notes %d part(s):\n%s", rows, r.fact, noted, human)
		}
	}
	// "no endpoint reaches": each host listed, with its reasons, has a
	// note per reason for Claude Code and bundlectl.
	marked := regexp.MustCompile(`(?m)^  (?:no endpoint reaches| {19}) ("[^"]*") \((.*)\)$`).FindAllStringSubmatch(human, -1)
	never := map[string]bool{}
	for _, n := range notes {
		if n.Part == PartNetworkHost && strings.HasPrefix(n.Fact, "never_") {
			never[n.Name] = true
		}
	}
	if len(marked) != len(never) {
		t.Errorf("the review marks %d host(s) no endpoint reaches, host_notes %d:\n%s", len(marked), len(never), human)
	}
	for _, m := range marked {
		var host string
		if err := json.Unmarshal([]byte(m[1]), &host); err != nil || !never[host] {
			t.Errorf("the review marks %s no endpoint reaches (%s); host_notes say nothing of it", m[1], m[2])
		}
		for _, who := range []string{string(bundle.HostClaude), HostBundlectl} {
			n := 0
			for _, note := range notes {
				if note.Part == PartNetworkHost && note.Name == host && note.Host == who && strings.HasPrefix(note.Fact, "never_") {
					n++
				}
			}
			if reasons := strings.Count(m[2], "; ") + 1; n != reasons {
				t.Errorf("%s: %d reason(s) in the review, %d note(s) for %s", m[1], reasons, n, who)
			}
		}
	}
}
