package sources

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
)

// gitConfig is passed as -c options to every git command. Command-line
// configuration outranks every file git reads, and git hands it on to the
// processes it starts (upload-pack of a local repository included)
// through GIT_CONFIG_PARAMETERS.
var gitConfig = []string{
	"core.hooksPath=/dev/null", // no hook runs, wherever it comes from
	"credential.helper=",       // no credential helper: nothing is looked up or stored
	"core.askPass=",            // no password prompt program
	"core.fsmonitor=false",     // no file-system monitor program
	// core.sshCommand is sshCommand's, after these.
	"ssh.variant=ssh",
	"protocol.allow=never", // only the transports below; no ext::, git://, http://
	"protocol.file.allow=always",
	"protocol.https.allow=always",
	"protocol.ssh.allow=always",
	"submodule.recurse=false", // submodules are never fetched
	"fetch.recurseSubmodules=false",
	"filter.lfs.smudge=", // no LFS (or other) filter program; nothing is checked out anyway
	"filter.lfs.process=",
	"filter.lfs.required=false",
	"http.followRedirects=false", // only the named host
	"transfer.fsckObjects=true",  // malformed objects and tree entries are refused
	"gc.auto=0",
	"maintenance.auto=false",
	"init.defaultBranch=main",
	"core.logAllRefUpdates=false",
}

// offlineConfig follows gitConfig on every git command but the two that
// transfer objects (network: the fetch of the commit and the prefetch of
// its blobs), so that no other one can reach the remote. The scratch
// repository is a partial clone: any command that reads an object it
// lacks — one a server left out of its answer — would fetch it on its own
// ("lazy fetch", a git fetch per object, started by git with these
// settings in GIT_CONFIG_PARAMETERS), outside the transfer bound that
// network enforces. With every transport refused, it fails instead.
var offlineConfig = []string{
	"protocol.file.allow=never",
	"protocol.https.allow=never",
	"protocol.ssh.allow=never",
}

// passEnv are the variables a fetch may need to reach its source (proxies,
// certificate bundles); nothing else of the caller's environment reaches git.
var passEnv = []string{
	"https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY", "all_proxy", "ALL_PROXY",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "GIT_SSL_CAINFO",
}

// fetchedRef holds the commit a fetch resolved.
const fetchedRef = "refs/bundlectl/fetched"

// maxGitOutput bounds what is read from a git command's standard output
// when it is buffered.
const maxGitOutput = 16 << 20

// errTransferTooLarge cancels a git command whose download exceeded the
// transfer bound.
var errTransferTooLarge = errors.New("transfer too large")

// gitRepo is a scratch bare repository that fetches from one remote.
type gitRepo struct {
	f        *fetcher
	dir      string // the bare repository: its name in the scratch directory, git's working directory
	remote   string // URL or absolute path, as passed to git
	src      string // display source for errors
	env      []string
	maxBytes int64 // bound on the repository's size while fetching
}

func gitEnv(home string, ssh bool) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + home,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_ASKPASS=",
		"SSH_ASKPASS=",
		"GIT_NO_REPLACE_OBJECTS=1",
		"GIT_LITERAL_PATHSPECS=1",
		"GIT_PROTOCOL_FROM_USER=0",
		"LC_ALL=C",
	}
	if ssh {
		// ssh needs the user's keys, agent and known_hosts.
		env[1] = "HOME=" + os.Getenv("HOME")
		if v, ok := os.LookupEnv("SSH_AUTH_SOCK"); ok {
			env = append(env, "SSH_AUTH_SOCK="+v)
		}
	}
	for _, k := range passEnv {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return append(env, testOnlyGitEnv...)
}

// isSSH reports whether remote is reached over ssh.
func isSSH(remote string) bool {
	if strings.HasPrefix(strings.ToLower(remote), "ssh://") {
		return true
	}
	return !strings.Contains(remote, "://") && scpLike().MatchString(remote)
}

// newGitRepo creates the bare repository dir (a name in the fetch's
// scratch directory), set up to fetch from remote as a partial clone
// (blobs on demand), so a subdirectory of a large repository costs only
// its own files. bundlectl makes the repository's skeleton itself,
// through the scratch directory held open, rather than with git init,
// which makes its path absolute: every git command then runs in the
// held scratch directory (gitWorkDir) with the repository and its home
// named relative to it, so git reads and writes nowhere else whatever is
// done meanwhile to the directories above it.
func (f *fetcher) newGitRepo(dir, remote, src string) (*gitRepo, error) {
	if _, err := f.gitWorkDir(src); err != nil {
		return nil, err
	}
	home := dir + ".home"
	if err := f.scratch.Mkdir(home, 0o700); err != nil {
		return nil, err
	}
	g := &gitRepo{f: f, dir: dir, remote: remote, src: src, env: gitEnv(home, isSSH(remote)),
		maxBytes: 4*f.lim.MaxTotalBytes + 64<<20}
	if testOnlyTransferBound > 0 {
		g.maxBytes = testOnlyTransferBound
	}
	for _, d := range []string{dir, dir + "/objects", dir + "/refs", dir + "/refs/heads", dir + "/refs/tags"} {
		if err := f.scratch.Mkdir(d, 0o700); err != nil {
			return nil, err
		}
	}
	for _, fc := range [][2]string{
		{"HEAD", "ref: refs/heads/main\n"},
		{"config", "[core]\n\trepositoryformatversion = 0\n\tbare = true\n"},
	} {
		w, err := f.scratch.OpenFile(dir+"/"+fc[0], os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, err
		}
		_, err = w.WriteString(fc[1])
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
	}
	for _, kv := range [][2]string{
		{"core.repositoryformatversion", "1"},
		{"extensions.partialClone", "origin"},
		{"remote.origin.url", remote},
		{"remote.origin.promisor", "true"},
		{"remote.origin.partialclonefilter", "blob:none"},
	} {
		if _, err := g.run(nil, "config", kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// command is the git command args in the scratch repository gitDir;
// only a transfer (network) may reach the remote.
func (g *gitRepo) command(ctx context.Context, transfer bool, gitDir string, args ...string) *exec.Cmd {
	full := make([]string, 0, 2*(len(gitConfig)+len(offlineConfig))+len(args)+1)
	for _, c := range gitConfig {
		full = append(full, "-c", c)
	}
	full = append(full, "-c", "core.sshCommand="+sshCommand())
	if !transfer {
		for _, c := range offlineConfig {
			full = append(full, "-c", c)
		}
	}
	if gitDir != "" {
		full = append(full, "--git-dir="+gitDir)
	}
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, g.f.gitPath, full...)
	cmd.Env = g.env
	cmd.Dir = g.f.workDir
	if g.f.viaFD {
		g.f.gitHeldDir(cmd)
	}
	cmd.SysProcAttr = procAttr(isSSH(g.remote))
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// sshCommand is the command git runs ssh with. ssh never prompts, and
// holds nothing of the scratch directory: an ssh ControlPersist master
// forks off it and outlives bundlectl, so it starts in / without git's
// descriptor 3 (gitHeldDir). sshLauncher dies with git where it can. The
// command no longer starts with "ssh", so gitConfig names the variant.
func sshCommand() string {
	return "cd / && exec " + sshLauncher() + "ssh -o BatchMode=yes 3<&-"
}

// runGit runs git as cmd.Run does, waiting for it with waitGit.
func runGit(cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	return waitGit(cmd)
}

// run runs git in the repository and returns its standard output.
func (g *gitRepo) run(stdin io.Reader, args ...string) ([]byte, error) {
	return g.runCtx(g.f.ctx, false, g.dir, stdin, args...)
}

// runCtx runs git with args in gitDir under ctx (a transfer, alone, may
// reach the remote: command) and returns its standard output, bounded
// by maxGitOutput.
func (g *gitRepo) runCtx(ctx context.Context, transfer bool, gitDir string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := g.command(ctx, transfer, gitDir, args...)
	var out limitedBuffer
	out.max = maxGitOutput
	var errb tailBuffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &out, &errb
	err := runGit(cmd)
	if err == nil && out.over {
		err = errors.New("output too large")
	}
	if err != nil {
		return nil, g.fail(ctx, args[0], err, errb.String())
	}
	return out.Bytes(), nil
}

// fail turns a failed git command into an *Error naming the source.
func (g *gitRepo) fail(ctx context.Context, verb string, err error, stderr string) error {
	if cause := context.Cause(ctx); cause != nil {
		switch {
		case errors.Is(cause, errTransferTooLarge):
			return &Error{Source: g.src, Reason: fmt.Sprintf("the repository transfer grew beyond %d bytes (four times the bundle's total-size limit, plus 64 MiB) and was stopped", g.maxBytes), Err: ErrRefused}
		case errors.Is(cause, context.DeadlineExceeded):
			return &Error{Source: g.src, Reason: fmt.Sprintf("the fetch did not finish within %s and was stopped", g.f.timeout), Err: ErrTimeout}
		default:
			return &Error{Source: g.src, Reason: "the fetch was cancelled", Err: cause}
		}
	}
	msg := gitMessage(stderr)
	reason := "git " + verb + " failed"
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			// Killed from outside: git's own last words say only that
			// a child of it died, if anything.
			reason = fmt.Sprintf("git %s was killed by signal %d (%s) before it finished", verb, int(ws.Signal()), ws.Signal())
			if msg != "" {
				reason += ": " + msg
			}
			return &Error{Source: g.src, Reason: reason, Err: ErrInterrupted}
		}
	}
	if msg != "" {
		reason += ": " + msg
	}
	var sentinel error = err
	l := strings.ToLower(stderr)
	if strings.Contains(l, "fsck error") {
		// git's own check of every received object (transfer.fsckObjects)
		// refused one: the repository holds a malformed or hostile tree
		// entry (".git", "..", a path git would not check out).
		return &Error{Source: g.src, Reason: "git refused an object the repository holds: " + msg, Err: ErrRefused}
	}
	if strings.Contains(l, "from promisor remote") {
		// An object the server left out of its answer, which git tried
		// to fetch on its own and offlineConfig stopped.
		return &Error{Source: g.src, Reason: "the server did not send an object the fetch needs (git " + verb + " would have fetched it on its own, outside the fetch's bounded transfer): " + msg, Err: ErrRefused}
	}
	if strings.Contains(l, "died of signal") {
		// A child of git (index-pack, upload-pack) was killed from
		// outside, and git failed for it.
		return &Error{Source: g.src, Reason: reason, Err: ErrInterrupted}
	}
	for _, s := range []string{"couldn't find remote ref", "not our ref", "does not appear to be a git repository", "repository not found", "not found", "no such remote ref", "unadvertised object"} {
		if strings.Contains(l, s) {
			sentinel = ErrNotFound
			break
		}
	}
	e := &Error{Source: g.src, Reason: reason, Err: sentinel}
	if verb == "fetch" {
		e.Fix = LsRemote(g.remote)
	}
	return e
}

// LsRemote is "git ls-remote REMOTE", the command that shows why a fetch
// from remote failed (the repository's refs, or git's own error for a
// repository it cannot reach), or "" when remote carries userinfo (other
// than an ssh:// login name alone, see bareSSHUser), a query or a
// fragment: a command printed for pasting never repeats a credential, and
// one redacted would not work as printed.
func LsRemote(remote string) string {
	if remote == "" || redact(remote) != remote || strings.HasPrefix(remote, "-") || hasControl(remote) {
		return ""
	}
	return "git ls-remote " + bundle.ShellArg(remote)
}

// withGitListing is withListing for a tree fetched from commit of the git
// remote (its Path relative to the directory sub): the refused entry's
// directory (or, for a git directory's shape, the directory itself)
// listed in that commit, as git ls-tree lists it; for a --path that is
// not there (not found), the directory it was looked for in.
func withGitListing(err error, remote, commit, sub string) error {
	var e *Error
	if !errors.As(err, &e) || e.Fix != "" || e.Path == "" || !errors.Is(err, ErrRefused) && !errors.Is(err, ErrNotFound) {
		return err
	}
	dir := path.Dir(e.Path)
	if errors.Is(err, errGitShape) {
		dir = e.Path
	}
	if dir == "." {
		dir = ""
	}
	if sub != "" {
		dir = strings.TrimSuffix(path.Join(sub, dir), "/")
	}
	e.Fix = ListGitDir(remote, commit, dir)
	return err
}

// ShowGitFile is the shell command that prints the file p (slash-
// separated, relative to the repository's root) of commit in remote: it
// fetches that one commit into a temporary repository, shows the file and
// removes the repository. It is "" when LsRemote is (a remote that carries
// a credential, or one no command may name as printed), or when commit is
// not a full commit id.
func ShowGitFile(remote, commit, p string) string {
	if hasControl(p) || strings.HasPrefix(p, "-") {
		return ""
	}
	return inFetchedCommit(remote, commit, `git -C "$d" show "FETCH_HEAD:$3"`, p)
}

// ListGitDir is the shell command that lists the directory dir (slash-
// separated, "" for the root) of commit in remote, as git ls-tree does:
// each entry's mode (a link's is 120000), type and name, where an entry a
// fetch refused shows with its neighbours. "" as for ShowGitFile.
func ListGitDir(remote, commit, dir string) string {
	if hasControl(dir) || strings.HasPrefix(dir, "-") {
		return ""
	}
	if dir == "" {
		return inFetchedCommit(remote, commit, `git -C "$d" ls-tree FETCH_HEAD`)
	}
	return inFetchedCommit(remote, commit, `git -C "$d" ls-tree FETCH_HEAD -- "$3"`, dir+"/")
}

// ValidateGitTree is the shell command that prints bundlectl's full
// validation report of the directory sub ("" for the root) of commit in
// remote: the tree is written out by git archive into a directory named
// name (a bundle's directory name is part of what is validated), with the
// tree's own export attributes overridden (archiveAsFetched), and
// validated there. "" as for ShowGitFile, or when name is not a plain
// directory name.
func ValidateGitTree(remote, commit, sub, name string) string {
	if hasControl(sub) || strings.HasPrefix(sub, "-") || name == "" || name == "." || name == ".." ||
		strings.ContainsAny(name, "/\\") || hasControl(name) {
		return ""
	}
	tree := "FETCH_HEAD"
	if sub != "" {
		tree += ":" + sub
	}
	return inFetchedCommit(remote, commit, `mkdir "$d/$3" && `+archiveAsFetched+` && git -C "$d" archive "$4" | tar -x -C "$d/$3" && bundlectl validate "$d/$3"`, name, tree)
}

// withGitCopyWithout gives the refusal of a directory shaped as a git
// repository in the tree of the directory sub of commit in remote (a
// test fixture) the command that does what docs/sources.md says to do:
// InstallGitCopyWithout.
func withGitCopyWithout(err error, remote, commit, sub, name string) error {
	var e *Error
	if !errors.As(err, &e) || e.Fix != "" || !errors.Is(err, errGitShape) {
		return err
	}
	if e.Fix = InstallGitCopyWithout(remote, commit, sub, name, e.Path); e.Fix != "" {
		dir := e.Path
		if sub != "" {
			dir = path.Join(sub, dir)
		}
		e.copyFix, e.listFix = true, ListGitDir(remote, commit, dir)
	}
	return err
}

// withoutCopyHint gives err, a refusal whose hint installs a copy without
// a directory shaped as a git repository, the listing of that directory
// instead: the hint of a fetch that is not an install's
// (Options.NoCopyHint).
func withoutCopyHint(err error) error {
	var e *Error
	if errors.As(err, &e) && e.copyFix {
		e.Fix, e.copyFix = e.listFix, false
	}
	return err
}

// InstallGitCopyWithout is InstallCopyWithout for a tree fetched from
// git: the directory sub ("" for the root) of commit in remote written
// out by git archive (as ValidateGitTree does) into a temporary
// directory named name, without rel, and installed from there; the
// temporary directory stays, the installed bundle's recorded source.
// "" as for ValidateGitTree, or for a rel that is not a plain relative
// path.
func InstallGitCopyWithout(remote, commit, sub, name, rel string) string {
	if hasControl(sub) || strings.HasPrefix(sub, "-") || name == "" || name == "." || name == ".." ||
		strings.ContainsAny(name, "/\\") || hasControl(name) || !plainRel(rel) || LsRemote(remote) == "" || !isCommit(commit) {
		return ""
	}
	tree := "FETCH_HEAD"
	if sub != "" {
		tree += ":" + sub
	}
	return `sh -c 'd=$(mktemp -d) && git -C "$d" init -q && git -C "$d" fetch -q --depth 1 -- "$1" "$2" && mkdir "$d/$3" && ` + archiveAsFetched +
		` && git -C "$d" archive "$4" | tar -x -C "$d/$3" && rm -rf "$d/$3/$5" && p=$d/$3 && shift 5 && bundlectl "$@" install "$p"' sh ` +
		bundle.ShellArg(remote) + " " + commit + " " + bundle.ShellArg(name) + " " + bundle.ShellArg(tree) + " " + bundle.ShellArg(rel)
}

// plainRel reports whether rel is a clean slash-separated path below a
// directory, one no command reads as an option or a control character.
func plainRel(rel string) bool {
	return rel != "" && rel != "." && rel != ".." && !path.IsAbs(rel) && path.Clean(rel) == rel &&
		!strings.HasPrefix(rel, "../") && !hasControl(rel)
}

// archiveAsFetched makes git archive in the temporary repository ($d)
// write the tree as it was fetched: attributes of $GIT_DIR/info/attributes
// override those of the tree's .gitattributes, which could otherwise ask
// it to leave out a file or directory (export-ignore: an invalid manifest
// left out, the rest validated "valid") or rewrite one: export-subst,
// eol and ident conversions, a working-tree-encoding, and a filter driver
// the user's own git config defines (git lfs install's), whose smudge
// could print whatever it fetches in place of the bytes fetched.
const archiveAsFetched = `mkdir -p "$d/.git/info" && echo "* -export-ignore -export-subst -text -filter -ident -working-tree-encoding" > "$d/.git/info/attributes"`

// inFetchedCommit is the shell command that fetches commit of remote
// into a temporary repository, runs then there ($d), removes it, and
// exits as the fetch or then did (not as the removal: a hint whose
// command failed must not report success); ""
// when LsRemote is, or when commit is not a full commit id (what the
// command shows must be what was read). It is a script of sh's, given
// the remote, the commit and args as its arguments ($1, $2, $3…): as
// printed it runs in any shell a user pastes it into, fish's included
// (whose syntax has no name=$(…)), and then, written with neither a
// quote nor a backslash inside its single quotes, quotes nothing of
// what it is given.
func inFetchedCommit(remote, commit, then string, args ...string) string {
	if LsRemote(remote) == "" || !isCommit(commit) {
		return ""
	}
	cmd := `sh -c 'd=$(mktemp -d) && git -C "$d" init -q && git -C "$d" fetch -q --depth 1 -- "$1" "$2" && ` + then + `; s=$?; rm -rf "$d"; exit $s' sh ` +
		bundle.ShellArg(remote) + " " + commit
	for _, a := range args {
		cmd += " " + bundle.ShellArg(a)
	}
	return cmd
}

// gitMessage keeps the lines of git's standard error that carry the
// cause, escaped: a remote can write anything to our standard error (its
// "remote:" lines), so it never reaches a terminal raw. git ends a failure
// with its "fatal:"/"error:" lines and often a paragraph of advice after
// them ("Please make sure you have the correct access rights / and the
// repository exists."), so the last lines alone can cut the cause ("fatal:
// '/srv/r' does not appear to be a git repository"). When git wrote such
// lines, every one is kept (at most maxCauseLines, the first ones: git
// writes the cause first), after the line just before the first of them
// (what ssh or the remote said: "ssh: connect to host … refused",
// "remote: Repository not found."); else the last three lines.
func gitMessage(stderr string) string {
	var lines []string
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "hint:") {
			continue
		}
		if len(l) > 240 {
			l = l[:240] + "…"
		}
		lines = append(lines, bundle.Sanitize(l))
	}
	cause := func(l string) bool { return strings.HasPrefix(l, "fatal:") || strings.HasPrefix(l, "error:") }
	var keep []string
	for i, l := range lines {
		if !cause(l) {
			continue
		}
		if len(keep) == 0 && i > 0 {
			keep = append(keep, lines[i-1])
		}
		if keep = append(keep, l); len(keep) >= maxCauseLines {
			break
		}
	}
	if len(keep) == 0 {
		keep = lines[max(0, len(lines)-3):]
	}
	return strings.Join(keep, "; ")
}

// maxCauseLines bounds the lines of git's standard error an error repeats.
const maxCauseLines = 6

// network runs a git command that transfers objects, stopping it once
// the repository grows past maxBytes: a hostile or huge repository
// cannot fill the disk while the timeout runs.
func (g *gitRepo) network(stdin io.Reader, args ...string) error {
	ctx, cancel := context.WithCancelCause(g.f.ctx)
	defer cancel(nil)
	done := make(chan struct{})
	defer close(done)
	go func() {
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if dirSize(g.f.scratch, g.dir) > g.maxBytes {
					cancel(errTransferTooLarge)
					return
				}
			}
		}
	}()
	_, err := g.runCtx(ctx, true, g.dir, stdin, args...)
	if err == nil && dirSize(g.f.scratch, g.dir) > g.maxBytes {
		return g.fail(ctxWithCause(errTransferTooLarge), args[0], nil, "")
	}
	return err
}

func ctxWithCause(cause error) context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	return ctx
}

// dirSize is the size of the regular files under dir, a name in r.
func dirSize(r *os.Root, dir string) int64 {
	var n int64
	fs.WalkDir(r.FS(), dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// fetch fetches ref ("" for the remote's HEAD; a branch, a tag or a full
// commit id) with no history and no blobs, and returns the commit it
// resolved to. A commit id is fetched directly; when the server refuses
// that and fallback names a ref, the ref is fetched with its history and
// the commit must be reachable from it.
func (g *gitRepo) fetch(ref, fallback string) (string, error) {
	base := []string{"fetch", "-q", "--no-tags", "--no-write-fetch-head", "--recurse-submodules=no", "--filter=blob:none"}
	want := ref
	if want == "" {
		want = "HEAD"
	}
	err := g.network(nil, append(base, "--depth=1", "origin", "+"+want+":"+fetchedRef)...)
	if err != nil && isCommit(ref) && fallback != "" && !errors.Is(err, ErrTimeout) {
		if ferr := g.network(nil, append(base, "origin", "+"+fallback+":"+fetchedRef)...); ferr != nil {
			return "", err
		}
		if _, aerr := g.run(nil, "merge-base", "--is-ancestor", ref, fetchedRef); aerr != nil {
			return "", &Error{Source: g.src, Reason: fmt.Sprintf("commit %s is not reachable from %s", ref, bundle.Quote(fallback)), Err: ErrNotFound}
		}
		return ref, nil
	}
	if err != nil {
		return "", err
	}
	out, err := g.run(nil, "rev-parse", "--verify", "-q", fetchedRef+"^{commit}")
	if err != nil {
		return "", &Error{Source: g.src, Reason: fmt.Sprintf("%s does not name a commit", bundle.Quote(want)), Err: ErrNotFound}
	}
	commit := strings.TrimSpace(string(out))
	if !isCommit(commit) {
		return "", &Error{Source: g.src, Reason: "git returned a malformed commit id", Err: ErrRefused}
	}
	if isCommit(ref) && commit != ref {
		return "", &Error{Source: g.src, Reason: fmt.Sprintf("fetched commit %s, not the pinned %s", commit, ref), Err: ErrPinMismatch}
	}
	return commit, nil
}

// treeEntry is one line of git ls-tree.
type treeEntry struct {
	mode, typ, oid, path string
}

// lookup finds the entry for the slash path p inside the tree-ish root,
// one element at a time, without following a symbolic link: every
// element but the last must be a directory (tree).
func (g *gitRepo) lookup(root, p string) (treeEntry, error) {
	cur := treeEntry{mode: "040000", typ: "tree", oid: root}
	done := ""
	for _, e := range strings.Split(p, "/") {
		if cur.typ != "tree" {
			return treeEntry{}, &Error{Source: g.src, Path: done, Reason: "is not a directory", Err: ErrNotFound}
		}
		out, err := g.run(nil, "ls-tree", "-z", "--end-of-options", cur.oid, "--", e)
		if err != nil {
			return treeEntry{}, err
		}
		done = pathJoin(done, e)
		var found *treeEntry
		for _, rec := range bytes.Split(out, []byte{0}) {
			te, ok := parseTreeEntry(string(rec))
			if ok && te.path == e {
				found = &te
				break
			}
		}
		if found == nil {
			return treeEntry{}, &Error{Source: g.src, Path: done, Reason: "does not exist in the repository", Err: ErrNotFound}
		}
		if found.mode == "120000" {
			return treeEntry{}, &Error{Source: g.src, Path: done, Reason: "is a symbolic link; bundlectl never follows links to find a bundle", Err: ErrRefused}
		}
		cur = *found
	}
	return cur, nil
}

// subtree returns the tree object of directory sub ("" for the root) of
// commit.
func (g *gitRepo) subtree(commit, sub string) (string, error) {
	out, err := g.run(nil, "rev-parse", "--verify", "-q", commit+"^{tree}")
	if err != nil {
		return "", err
	}
	root := strings.TrimSpace(string(out))
	if sub == "" {
		return root, nil
	}
	te, err := g.lookup(root, sub)
	if err != nil {
		return "", err
	}
	if te.typ != "tree" {
		return "", &Error{Source: g.src, Path: sub, Reason: "is not a directory", Err: ErrNotFound}
	}
	return te.oid, nil
}

func parseTreeEntry(rec string) (treeEntry, bool) {
	tab := strings.IndexByte(rec, '\t')
	if tab < 0 {
		return treeEntry{}, false
	}
	f := strings.Fields(rec[:tab])
	if len(f) != 3 {
		return treeEntry{}, false
	}
	return treeEntry{mode: f[0], typ: f[1], oid: f[2], path: rec[tab+1:]}, true
}

// extract writes the tree object oid into t: directories, files with
// their executable bit, symbolic links (t decides which are kept), and a
// submodule as the empty directory a checkout without submodules leaves.
// Names, counts and depth are checked before any file is downloaded, and
// sizes before any file is read.
func (g *gitRepo) extract(t *tree, oid string) error {
	type blob struct {
		path, oid  string
		exec, link bool
	}
	var blobs []blob
	err := g.listTree(oid, t.lim.MaxEntries, func(te treeEntry) error {
		switch te.mode {
		case "040000":
			return t.dir(te.path)
		case "100644", "100755":
			c, err := t.reserve(te.path, -1)
			if err != nil {
				return err
			}
			blobs = append(blobs, blob{c, te.oid, te.mode == "100755", false})
		case "120000":
			blobs = append(blobs, blob{te.path, te.oid, false, true})
		case "160000":
			return t.dir(te.path)
		default:
			return t.refuse(te.path, "unsupported git file mode %s", te.mode)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := g.prefetch(oid); err != nil {
		return err
	}
	oids := make([]string, len(blobs))
	for i, b := range blobs {
		oids[i] = b.oid
	}
	sizes, err := g.sizes(oids)
	if err != nil {
		return err
	}
	for i, b := range blobs {
		if b.link {
			if sizes[i] > MaxLinkTarget {
				return t.refuse(b.path, "the symbolic link's target is longer than %d bytes", MaxLinkTarget)
			}
			continue
		}
		if err := t.account(b.path, sizes[i]); err != nil {
			return err
		}
	}
	return g.readBlobs(oids, func(i int, _ int64, r io.Reader) error {
		b := blobs[i]
		if b.link {
			target, err := io.ReadAll(io.LimitReader(r, MaxLinkTarget+1))
			if err != nil {
				return err
			}
			return t.link(b.path, string(target))
		}
		return t.write(b.path, b.exec, r)
	})
}

// listTree streams git ls-tree -r -t of oid into fn, refusing a tree of
// more than max entries without reading the rest.
func (g *gitRepo) listTree(oid string, max int, fn func(treeEntry) error) error {
	ctx, cancel := context.WithCancel(g.f.ctx)
	defer cancel()
	cmd := g.command(ctx, false, g.dir, "ls-tree", "-r", "-t", "-z", "--end-of-options", oid)
	var errb tailBuffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	br := bufio.NewReaderSize(out, 64<<10)
	n := 0
	var ferr error
	for ferr == nil {
		rec, err := br.ReadString(0)
		if err == io.EOF && rec == "" {
			break
		}
		if err != nil && err != io.EOF {
			ferr = err
			break
		}
		rec = strings.TrimSuffix(rec, "\x00")
		te, ok := parseTreeEntry(rec)
		if !ok {
			ferr = &Error{Source: g.src, Reason: "git ls-tree printed a malformed line", Err: ErrRefused}
			break
		}
		if n++; n > max {
			ferr = &Error{Source: g.src, Reason: fmt.Sprintf("the repository directory has more than %d entries", max), Err: ErrRefused}
			break
		}
		ferr = fn(te)
	}
	if ferr != nil {
		cancel()
		waitGit(cmd)
		return ferr
	}
	if err := waitGit(cmd); err != nil {
		return g.fail(ctx, "ls-tree", err, errb.String())
	}
	return nil
}

// prefetch downloads, in one request, the blobs below the tree or blob
// oid that the partial fetch left out. Against a server that ignored the
// filter nothing is missing and nothing is fetched.
func (g *gitRepo) prefetch(oid string) error {
	missing, err := g.missing(oid)
	if err != nil || missing.Len() == 0 {
		return err
	}
	err = g.network(&missing, "-c", "fetch.negotiationAlgorithm=noop", "fetch", "-q", "origin",
		"--no-tags", "--no-write-fetch-head", "--recurse-submodules=no", "--filter=blob:none", "--stdin")
	if err != nil {
		return err
	}
	// A server may answer with less than was asked for: what is still
	// missing is refused here, by name, rather than read by a command
	// that cannot fetch it (offlineConfig).
	if missing, err = g.missing(oid); err != nil || missing.Len() == 0 {
		return err
	}
	n := strings.Count(missing.String(), "\n")
	return &Error{Source: g.src, Reason: fmt.Sprintf("the server did not send %d of the objects the fetch asked for (the first: %s)", n, strings.TrimSpace(strings.SplitN(missing.String(), "\n", 2)[0])), Err: ErrRefused}
}

// missing lists, one a line, the objects below the tree or blob oid that
// the scratch repository lacks.
func (g *gitRepo) missing(oid string) (bytes.Buffer, error) {
	var missing bytes.Buffer
	out, err := g.run(nil, "rev-list", "--objects", "--missing=print", "--end-of-options", oid)
	if err != nil {
		return missing, err
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "?") {
			missing.WriteString(l[1:] + "\n")
		}
	}
	return missing, nil
}

// sizes returns the size of each blob in oids (present locally).
func (g *gitRepo) sizes(oids []string) ([]int64, error) {
	if len(oids) == 0 {
		return nil, nil
	}
	var in bytes.Buffer
	for _, o := range oids {
		in.WriteString(o + "\n")
	}
	out, err := g.run(&in, "cat-file", "--batch-check")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(oids) {
		return nil, &Error{Source: g.src, Reason: "git cat-file answered for a different number of objects", Err: ErrRefused}
	}
	sizes := make([]int64, len(oids))
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) != 3 || f[0] != oids[i] || f[1] != "blob" {
			return nil, &Error{Source: g.src, Reason: fmt.Sprintf("object %s is missing or not a file", oids[i]), Err: ErrRefused}
		}
		n, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || n < 0 {
			return nil, &Error{Source: g.src, Reason: "git cat-file printed a malformed size", Err: ErrRefused}
		}
		sizes[i] = n
	}
	return sizes, nil
}

// readBlobs streams the content of each blob in oids to fn, in order,
// through one git cat-file --batch: raw object bytes, no filter, no
// attribute, no conversion.
func (g *gitRepo) readBlobs(oids []string, fn func(i int, size int64, r io.Reader) error) error {
	if len(oids) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(g.f.ctx)
	defer cancel()
	cmd := g.command(ctx, false, g.dir, "cat-file", "--batch")
	var errb tailBuffer
	cmd.Stderr = &errb
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() {
		w := bufio.NewWriter(in)
		for _, o := range oids {
			if _, err := w.WriteString(o + "\n"); err != nil {
				break
			}
		}
		w.Flush()
		in.Close()
	}()
	br := bufio.NewReaderSize(out, 256<<10)
	ferr := func() error {
		for i, o := range oids {
			hdr, err := br.ReadString('\n')
			if err != nil {
				return err
			}
			f := strings.Fields(hdr)
			if len(f) != 3 || f[0] != o || f[1] != "blob" {
				return &Error{Source: g.src, Reason: fmt.Sprintf("object %s is missing or not a file", o), Err: ErrRefused}
			}
			size, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil || size < 0 {
				return &Error{Source: g.src, Reason: "git cat-file printed a malformed size", Err: ErrRefused}
			}
			lr := &io.LimitedReader{R: br, N: size}
			if err := fn(i, size, lr); err != nil {
				return err
			}
			if _, err := io.Copy(io.Discard, lr); err != nil {
				return err
			}
			if b, err := br.ReadByte(); err != nil || b != '\n' {
				return &Error{Source: g.src, Reason: "git cat-file output is malformed", Err: ErrRefused}
			}
		}
		return nil
	}()
	if ferr != nil {
		cancel()
		werr := waitGit(cmd)
		var e *Error
		if errors.As(ferr, &e) {
			return ferr
		}
		if werr != nil {
			return g.fail(ctx, "cat-file", werr, errb.String())
		}
		return ferr
	}
	if err := waitGit(cmd); err != nil {
		return g.fail(ctx, "cat-file", err, errb.String())
	}
	return nil
}

// readFile returns the content of the regular file p (a slash path) of
// commit, refusing a link on the way, another type, or more than max
// bytes.
func (g *gitRepo) readFile(commit, p string, max int64) ([]byte, error) {
	out, err := g.run(nil, "rev-parse", "--verify", "-q", commit+"^{tree}")
	if err != nil {
		return nil, err
	}
	te, err := g.lookup(strings.TrimSpace(string(out)), p)
	if err != nil {
		return nil, err
	}
	if te.mode != "100644" && te.mode != "100755" {
		return nil, &Error{Source: g.src, Path: p, Reason: "is not a regular file", Err: ErrRefused}
	}
	if err := g.prefetch(te.oid); err != nil {
		return nil, err
	}
	sizes, err := g.sizes([]string{te.oid})
	if err != nil {
		return nil, err
	}
	if sizes[0] > max {
		return nil, &Error{Source: g.src, Path: p, Reason: fmt.Sprintf("is %d bytes, more than the limit of %d", sizes[0], max), Err: ErrRefused}
	}
	var data []byte
	err = g.readBlobs([]string{te.oid}, func(_ int, _ int64, r io.Reader) error {
		var err error
		data, err = io.ReadAll(io.LimitReader(r, max+1))
		return err
	})
	return data, err
}

// exists reports whether the slash path p exists in commit (as anything).
func (g *gitRepo) exists(commit, p string) (bool, error) {
	out, err := g.run(nil, "rev-parse", "--verify", "-q", commit+"^{tree}")
	if err != nil {
		return false, err
	}
	_, err = g.lookup(strings.TrimSpace(string(out)), p)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return false, err
}

// limitedBuffer keeps at most max bytes and notes when more arrived.
type limitedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if b.Len()+len(p) > b.max {
		b.over = true
		p = p[:max(0, b.max-b.Len())]
	}
	b.Buffer.Write(p)
	return n, nil
}

// tailBuffer keeps the last 16 KiB written.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 16<<10 {
		t.b = t.b[len(t.b)-16<<10:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }

// Test seams.
var (
	// testOnlyGitEnv is appended to git's environment.
	testOnlyGitEnv []string
	// testOnlyTransferBound replaces the bound on a repository's size.
	testOnlyTransferBound int64
)
