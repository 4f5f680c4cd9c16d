package staging

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/receipts"
)

// A snapshot's records file, store/<hex>.records, lists the entries the
// snapshot was staged with (docs/snapshots.md):
//
//	bundlectl-snapshot-records-v1 <content hash hex>\n
//	D - - <path>\n
//	F <size> <digest hex> <path>\n
//	X <size> <digest hex> <path>\n
//	L - <target, Go-quoted> <path>\n
//
// where a link's target is the root-relative path of the file it resolves
// to, quoted with strconv.Quote (it may hold spaces). It only lets Verify
// say which path changed; it is never trusted for the verdict, which comes
// from the full re-hash alone.
const recordsHeader = "bundlectl-snapshot-records-v1 "

type record struct {
	Path   string
	Kind   bundle.Kind
	Size   int64
	Digest receipts.Digest
	Target string // links only
}

func encodeRecords(hash receipts.Digest, t *bundle.Tree, digests []receipts.Digest) []byte {
	rs := make([]record, len(t.Entries))
	for i, e := range t.Entries {
		rs[i] = record{Path: e.Path, Kind: e.Kind, Size: e.Size, Digest: digests[i], Target: e.Target}
	}
	return formatRecords(hash, rs)
}

func formatRecords(hash receipts.Digest, rs []record) []byte {
	var b bytes.Buffer
	b.WriteString(recordsHeader + hash.String() + "\n")
	for _, r := range rs {
		switch r.Kind {
		case bundle.KindDir:
			fmt.Fprintf(&b, "D - - %s\n", r.Path)
		case bundle.KindLink:
			fmt.Fprintf(&b, "L - %s %s\n", strconv.Quote(r.Target), r.Path)
		default:
			fmt.Fprintf(&b, "%c %d %s %s\n", r.Kind, r.Size, r.Digest, r.Path)
		}
	}
	return b.Bytes()
}

// parseLinkRecord parses the rest of a link line after "L - ": a quoted
// target exactly as strconv.Quote writes it, one space, the path.
func parseLinkRecord(rest string) (record, bool) {
	q, err := strconv.QuotedPrefix(rest)
	if err != nil || len(rest) < len(q)+2 || rest[len(q)] != ' ' {
		return record{}, false
	}
	target, err := strconv.Unquote(q)
	if err != nil || target == "" || strconv.Quote(target) != q {
		return record{}, false
	}
	return record{Kind: bundle.KindLink, Target: target, Path: rest[len(q)+1:]}, true
}

// readRecords reads the records file for hash, at most max bytes. It
// reports false when the file is missing, too large, malformed or for
// another hash: the records only help to name a change.
func readRecords(path string, hash receipts.Digest, max int64) ([]record, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil || int64(len(data)) > max {
		return nil, false
	}
	return parseRecords(data, hash)
}

// parseRecords accepts exactly what encodeRecords writes: the header for
// hash, then one line per entry in strictly ascending path order, decimal
// sizes without sign or leading zeros, lowercase hex digests, every line
// ending in a newline.
func parseRecords(data []byte, hash receipts.Digest) ([]record, bool) {
	text := string(data)
	if !strings.HasSuffix(text, "\n") {
		return nil, false
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if lines[0] != recordsHeader+hash.String() {
		return nil, false
	}
	var rs []record
	for _, line := range lines[1:] {
		if rest, ok := strings.CutPrefix(line, "L - "); ok {
			r, ok := parseLinkRecord(rest)
			if !ok || len(rs) > 0 && r.Path <= rs[len(rs)-1].Path {
				return nil, false
			}
			rs = append(rs, r)
			continue
		}
		f := strings.SplitN(line, " ", 4)
		if len(f) != 4 || len(f[0]) != 1 || f[3] == "" {
			return nil, false
		}
		r := record{Kind: bundle.Kind(f[0][0]), Path: f[3]}
		switch r.Kind {
		case bundle.KindDir:
			if f[1] != "-" || f[2] != "-" {
				return nil, false
			}
		case bundle.KindFile, bundle.KindExec:
			var err error
			if r.Size, err = strconv.ParseInt(f[1], 10, 64); err != nil || r.Size < 0 || strconv.FormatInt(r.Size, 10) != f[1] {
				return nil, false
			}
			if len(f[2]) != 2*receipts.Size {
				return nil, false
			}
			if _, err := hex.Decode(r.Digest[:], []byte(f[2])); err != nil || hex.EncodeToString(r.Digest[:]) != f[2] {
				return nil, false
			}
		default:
			return nil, false
		}
		if len(rs) > 0 && r.Path <= rs[len(rs)-1].Path {
			return nil, false
		}
		rs = append(rs, r)
	}
	return rs, true
}

// diffRecords returns the first difference, in path order, between what was
// staged and what the snapshot holds now, or "" if there is none.
func diffRecords(was []record, now *bundle.Tree, digests []receipts.Digest) (path, reason string) {
	i, j := 0, 0
	for i < len(was) || j < len(now.Entries) {
		switch {
		case j == len(now.Entries) || i < len(was) && was[i].Path < now.Entries[j].Path:
			return was[i].Path, "removed"
		case i == len(was) || now.Entries[j].Path < was[i].Path:
			return now.Entries[j].Path, "added"
		}
		w, e := was[i], now.Entries[j]
		switch {
		case w.Kind == bundle.KindLink && e.Kind != bundle.KindLink:
			return e.Path, "symbolic link replaced by a " + kindName(e.Kind)
		case w.Kind != bundle.KindLink && e.Kind == bundle.KindLink:
			return e.Path, kindName(w.Kind) + " replaced by a symbolic link"
		case w.Kind == bundle.KindLink && w.Target != e.Target:
			return e.Path, fmt.Sprintf("symbolic link retargeted from %s to %s", bundle.Quote(w.Target), bundle.Quote(e.Target))
		case w.Kind == bundle.KindLink:
		case w.Kind == bundle.KindDir && e.Kind != bundle.KindDir:
			return e.Path, "directory replaced by a file"
		case w.Kind != bundle.KindDir && e.Kind == bundle.KindDir:
			return e.Path, "file replaced by a directory"
		case w.Kind == bundle.KindFile && e.Kind == bundle.KindExec:
			return e.Path, "mode changed: executable bit added"
		case w.Kind == bundle.KindExec && e.Kind == bundle.KindFile:
			return e.Path, "mode changed: executable bit removed"
		case e.Kind != bundle.KindDir && w.Size != e.Size:
			return e.Path, fmt.Sprintf("size changed from %d to %d bytes", w.Size, e.Size)
		case e.Kind != bundle.KindDir && w.Digest != digests[j]:
			return e.Path, "content changed"
		}
		i, j = i+1, j+1
	}
	return "", ""
}

func kindName(k bundle.Kind) string {
	switch k {
	case bundle.KindDir:
		return "directory"
	case bundle.KindLink:
		return "symbolic link"
	}
	return "file"
}
