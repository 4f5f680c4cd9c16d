package review

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/inventory"
	"github.com/bundlectl/bundlectl/receipts"
)

// Diff is what changed in a bundle since its last trust: the files of its
// source against the snapshot its receipt names, and its capability
// inventory against the receipt's (docs/sources.md has the JSON shape).
// The reviewer reads what changed, not everything again.
type Diff struct {
	// Since is the trust the diff is against.
	Since DiffBase `json:"since"`
	// Files compares the trusted snapshot with the source tree.
	Files FileDiff `json:"files"`
	// Capabilities compares the receipt's inventory with the source's.
	Capabilities CapabilityDiff `json:"capabilities"`
	// FilesCompared and CapabilitiesCompared say whether each half was
	// compared: a half that was not (its reason is in Problems) has empty
	// lists, which say nothing about what changed.
	FilesCompared        bool `json:"files_compared"`
	CapabilitiesCompared bool `json:"capabilities_compared"`
	// Problems say what could not be compared, and why.
	Problems []string `json:"problems"`
	// Notes add what the reviewer should know (a switched-off hook that
	// was replaced, for instance).
	Notes []string `json:"notes"`
}

// DiffBase names the trust a diff is against.
type DiffBase struct {
	Token      receipts.Token `json:"token"`
	ReviewedAt time.Time      `json:"reviewed_at"`
}

// FileDiff lists the files added, removed and changed, each in path order.
type FileDiff struct {
	Added   []FileChange `json:"added"`
	Removed []FileChange `json:"removed"`
	Changed []FileChange `json:"changed"`
}

// FileChange is one entry of a FileDiff. Type is "file", "executable",
// "link" (a link to a file of the bundle) or "dir" (what the entry is now;
// for a removed entry, what it was). Change says how a changed entry
// changed.
type FileChange struct {
	Path   string `json:"path"`
	Type   string `json:"type"`
	Change string `json:"change,omitempty"`
}

// CapabilityDiff lists the capabilities added, removed and changed.
type CapabilityDiff struct {
	Added   []CapabilityChange `json:"added"`
	Removed []CapabilityChange `json:"removed"`
	Changed []CapabilityChange `json:"changed"`
}

// CapabilityChange is one entry of a CapabilityDiff.
//
// Kind is the component kind, named as in the inventory, singular: hook,
// tool, mcp_server, lsp_server, monitor, skill, command, agent,
// output_style, context, app, policy, user_config, inactive, or one of the
// bundle-wide entries host_variable, executable, exclude_tool, format,
// network_host, filesystem_root, permission, when, manifest, name.
//
// Name names the component (a hook by its id, which is what a switch
// takes; a changed hook by its new id, with Was its old one). A changed
// component has one entry per changed Field (a dotted path into the
// component's inventory JSON, "args", "env.API_URL",
// "grants.allowed_tools"). Old and New are the JSON values before and after
// (absent when there was none: a whole added component is in New, a
// removed one in Old). Summary is one line for people, terminal-safe.
type CapabilityChange struct {
	Kind    string          `json:"kind"`
	Name    string          `json:"name"`
	Was     string          `json:"was,omitempty"`
	Field   string          `json:"field,omitempty"`
	Old     json.RawMessage `json:"old,omitempty"`
	New     json.RawMessage `json:"new,omitempty"`
	Summary string          `json:"summary"`
}

// NewDiff returns an empty diff against the receipt rc, every list
// non-nil (the JSON form has arrays, never null).
func NewDiff(rc *receipts.Receipt) *Diff {
	d := &Diff{Problems: []string{}, Notes: []string{}}
	if rc != nil {
		d.Since = DiffBase{Token: rc.Token(), ReviewedAt: rc.ReviewedAt}
	}
	d.Files = FileDiff{Added: []FileChange{}, Removed: []FileChange{}, Changed: []FileChange{}}
	d.Capabilities = CapabilityDiff{Added: []CapabilityChange{}, Removed: []CapabilityChange{}, Changed: []CapabilityChange{}}
	return d
}

// Changed reports whether a half that was compared found a change.
func (d *Diff) Changed() bool {
	f, c := d.Files, d.Capabilities
	return len(f.Added)+len(f.Removed)+len(f.Changed)+len(c.Added)+len(c.Removed)+len(c.Changed) > 0
}

// Empty reports whether nothing changed and nothing failed to compare.
func (d *Diff) Empty() bool { return !d.Changed() && len(d.Problems) == 0 }

// WithCommand returns a copy of d whose problems and notes print the
// commands they name with cmd (RenderOptions.Command: the caller's
// --home and --workspace), so that each works as printed. d is returned
// as it is when either is nil.
func (d *Diff) WithCommand(cmd func(string) string) *Diff {
	if d == nil || cmd == nil {
		return d
	}
	c := *d
	c.Problems, c.Notes = allWithCommands(d.Problems, cmd), allWithCommands(d.Notes, cmd)
	return &c
}

func allWithCommands(texts []string, cmd func(string) string) []string {
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = bundle.CommandsIn(t, cmd)
	}
	return out
}

// ---- files ----

// DiffFiles compares the snapshot directory snap, which must hash to want
// (the receipt's content hash: a snapshot that does not is not what was
// trusted, and is reported rather than compared), with the walked source
// tree src. Both trees are hashed file by file through bundle.Opener, as
// the content hash is.
func DiffFiles(snap string, want receipts.Digest, src *bundle.Tree, lim bundle.Limits) (FileDiff, error) {
	var fd FileDiff
	old, rep := bundle.Walk(snap, lim)
	if old == nil || rep.Rejected() {
		return fd, fmt.Errorf("the trusted snapshot %s cannot be read: %w", bundle.Quote(snap), &TreeError{Dir: snap, Findings: errorFindings(rep)})
	}
	oldDigests, err := fileDigests(old)
	if err != nil {
		return fd, fmt.Errorf("the trusted snapshot %s cannot be hashed: %w", bundle.Quote(snap), err)
	}
	th := NewTreeHasher()
	for i, e := range old.Entries {
		if err := th.AddEntry(e, oldDigests[i]); err != nil {
			return fd, err
		}
	}
	if th.Sum() != want {
		return fd, fmt.Errorf("the trusted snapshot %s no longer matches its receipt (run bundlectl verify)", bundle.Quote(snap))
	}
	if src == nil {
		return fd, fmt.Errorf("the source could not be walked")
	}
	newDigests, err := fileDigests(src)
	if err != nil {
		return fd, err
	}
	return diffEntries(old.Entries, oldDigests, src.Entries, newDigests), nil
}

// DiffTrees compares two walked trees file by file (both hashed through
// bundle.Opener): what changed between an installed source and its update.
func DiffTrees(old, cur *bundle.Tree) (FileDiff, error) {
	od, err := fileDigests(old)
	if err != nil {
		return FileDiff{}, err
	}
	nd, err := fileDigests(cur)
	if err != nil {
		return FileDiff{}, err
	}
	return diffEntries(old.Entries, od, cur.Entries, nd), nil
}

func entryType(k bundle.Kind) string {
	switch k {
	case bundle.KindDir:
		return "dir"
	case bundle.KindExec:
		return "executable"
	case bundle.KindLink:
		return "link"
	}
	return "file"
}

// noun names an entry kind in a change description.
func noun(k bundle.Kind) string {
	switch k {
	case bundle.KindDir:
		return "directory"
	case bundle.KindLink:
		return "link"
	}
	return "file"
}

// diffEntries merges two path-sorted entry lists. A directory is listed
// as added or removed only when no added or removed entry lies below it:
// a new directory of files shows as its files.
func diffEntries(old []bundle.Entry, od []receipts.Digest, cur []bundle.Entry, nd []receipts.Digest) FileDiff {
	fd := FileDiff{Added: []FileChange{}, Removed: []FileChange{}, Changed: []FileChange{}}
	i, j := 0, 0
	for i < len(old) || j < len(cur) {
		switch {
		case j == len(cur) || i < len(old) && old[i].Path < cur[j].Path:
			fd.Removed = append(fd.Removed, FileChange{Path: old[i].Path, Type: entryType(old[i].Kind)})
			i++
			continue
		case i == len(old) || cur[j].Path < old[i].Path:
			fd.Added = append(fd.Added, FileChange{Path: cur[j].Path, Type: entryType(cur[j].Kind)})
			j++
			continue
		}
		o, n := old[i], cur[j]
		var why []string
		switch {
		case o.Kind == bundle.KindDir && n.Kind == bundle.KindDir:
		case o.Kind == bundle.KindLink && n.Kind == bundle.KindLink:
			if o.Target != n.Target {
				why = append(why, "link now points to "+bundle.EscapePath(n.Target)+" (was "+bundle.EscapePath(o.Target)+")")
			}
		case noun(o.Kind) != noun(n.Kind):
			why = append(why, noun(o.Kind)+" replaced by a "+noun(n.Kind))
		default: // regular files both
			if od[i] != nd[j] {
				if o.Size != n.Size {
					why = append(why, fmt.Sprintf("content changed (%d → %d bytes)", o.Size, n.Size))
				} else {
					why = append(why, "content changed")
				}
			}
			if o.Kind == bundle.KindFile && n.Kind == bundle.KindExec {
				why = append(why, "executable bit added")
			}
			if o.Kind == bundle.KindExec && n.Kind == bundle.KindFile {
				why = append(why, "executable bit removed")
			}
		}
		if len(why) > 0 {
			fd.Changed = append(fd.Changed, FileChange{Path: n.Path, Type: entryType(n.Kind), Change: strings.Join(why, ", ")})
		}
		i, j = i+1, j+1
	}
	fd.Added = pruneDirs(fd.Added)
	fd.Removed = pruneDirs(fd.Removed)
	return fd
}

func pruneDirs(cs []FileChange) []FileChange {
	out := cs[:0]
	for k, c := range cs {
		// Entries are in path order, so anything below c follows it.
		if c.Type == "dir" && k+1 < len(cs) && strings.HasPrefix(cs[k+1].Path, c.Path+"/") {
			continue
		}
		out = append(out, c)
	}
	return out
}

// ---- capabilities ----

// DiffInventories compares the trusted inventory old with the current one.
// Components are matched by kind and name (a hook by its id, then by event
// and matcher in order, so an edited hook shows as changed rather than as
// one removed and one added).
func DiffInventories(old, cur *inventory.Inventory) CapabilityDiff {
	c := &capDiffer{d: CapabilityDiff{Added: []CapabilityChange{}, Removed: []CapabilityChange{}, Changed: []CapabilityChange{}}}
	c.hooks(old.Hooks, cur.Hooks)
	diffList(c, "tool", old.Tools, cur.Tools, []func(inventory.Tool) string{func(t inventory.Tool) string { return t.Name }}, func(t inventory.Tool) string { return t.Name })
	diffList(c, "mcp_server", old.MCPServers, cur.MCPServers, []func(inventory.MCPServer) string{
		func(s inventory.MCPServer) string { return s.Name + "\x00" + strings.Join(s.Hosts, ",") },
		func(s inventory.MCPServer) string { return s.Name },
	}, func(s inventory.MCPServer) string { return s.Name })
	diffList(c, "lsp_server", old.LSPServers, cur.LSPServers, []func(inventory.LSPServer) string{
		func(s inventory.LSPServer) string { return s.Name + "\x00" + strings.Join(s.Hosts, ",") },
		func(s inventory.LSPServer) string { return s.Name },
	}, func(s inventory.LSPServer) string { return s.Name })
	diffList(c, "monitor", old.Monitors, cur.Monitors, []func(inventory.Monitor) string{func(m inventory.Monitor) string { return m.Name }}, func(m inventory.Monitor) string { return m.Name })
	docKeys := []func(inventory.Doc) string{
		func(d inventory.Doc) string { return d.Name + "\x00" + d.Path },
		func(d inventory.Doc) string { return d.Name },
		func(d inventory.Doc) string { return d.Path },
	}
	docName := func(d inventory.Doc) string { return d.Name }
	diffList(c, "skill", old.Skills, cur.Skills, docKeys, docName)
	diffList(c, "command", old.Commands, cur.Commands, docKeys, docName)
	diffList(c, "agent", old.Agents, cur.Agents, docKeys, docName)
	diffList(c, "output_style", old.OutputStyles, cur.OutputStyles, docKeys, docName)
	diffList(c, "context", old.Contexts, cur.Contexts, docKeys, docName)
	diffList(c, "app", old.Apps, cur.Apps, []func(inventory.App) string{func(a inventory.App) string { return a.Name }}, func(a inventory.App) string { return a.Name })
	diffList(c, "policy", old.Policies, cur.Policies, []func(inventory.Policy) string{func(p inventory.Policy) string { return p.Path }}, func(p inventory.Policy) string { return p.Path })
	diffList(c, "user_config", old.UserConfig, cur.UserConfig, []func(inventory.UserOption) string{
		func(o inventory.UserOption) string { return o.Key + "\x00" + strings.Join(o.Hosts, ",") },
		func(o inventory.UserOption) string { return o.Key },
	}, func(o inventory.UserOption) string { return o.Key })
	c.set("exclude_tool", old.ExcludeTools, cur.ExcludeTools)
	c.set("executable", old.Executables, cur.Executables)
	c.set("host_variable", old.HostVariables, cur.HostVariables)
	c.set("network_host", old.Permissions.NetworkHosts, cur.Permissions.NetworkHosts)
	c.set("filesystem_root", old.Permissions.FilesystemRoots, cur.Permissions.FilesystemRoots)
	if old.Permissions.NetworkDeclared != cur.Permissions.NetworkDeclared {
		c.scalar("permission", "network_declared", old.Permissions.NetworkDeclared, cur.Permissions.NetworkDeclared)
	}
	if old.Permissions.LifecycleMutation != cur.Permissions.LifecycleMutation {
		c.scalar("permission", "lifecycle_mutation", old.Permissions.LifecycleMutation, cur.Permissions.LifecycleMutation)
	}
	if !slices.Equal(old.When.OS, cur.When.OS) {
		c.scalar("when", "os", old.When.OS, cur.When.OS)
	}
	if !slices.Equal(old.When.Binaries, cur.When.Binaries) {
		c.scalar("when", "binaries", old.When.Binaries, cur.When.Binaries)
	}
	c.manifest(old.Manifest, cur.Manifest)
	c.set("format", old.Formats, cur.Formats)
	diffList(c, "inactive", old.Inactive, cur.Inactive, []func(inventory.Inactive) string{func(d inventory.Inactive) string { return d.Surface + "\x00" + d.Name }},
		func(d inventory.Inactive) string { return strings.TrimSpace(d.Surface + " " + d.Name) })
	if old.Name != cur.Name {
		c.scalar("name", "name", old.Name, cur.Name)
	}
	return c.d
}

type capDiffer struct{ d CapabilityDiff }

var kindLabels = map[string]string{
	"hook": "hook", "tool": "tool", "mcp_server": "MCP server", "lsp_server": "LSP server",
	"monitor": "monitor", "skill": "skill", "command": "command", "agent": "agent",
	"output_style": "output style", "context": "context file", "app": "app", "policy": "policy",
	"user_config": "user option", "inactive": "inactive declaration", "manifest": "manifest field",
	"permission": "permission", "when": "applies when", "name": "bundle name",
}

func label(kind, name string) string {
	l := kindLabels[kind]
	if l == "" {
		l = kind
	}
	return l + " " + bundle.Quote(name)
}

func mustJSON(v any) json.RawMessage {
	raw, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return raw
}

// pairBy pairs each of cur with one of old by the first key that matches
// (keys tried in order; each component pairs at most once): pair[j] is the
// index in old of cur[j]'s match, or -1; oldUsed marks the matched olds.
func pairBy[T any](old, cur []T, keys []func(T) string) (pair []int, oldUsed []bool) {
	oldUsed = make([]bool, len(old))
	pair = make([]int, len(cur))
	for j := range pair {
		pair[j] = -1
	}
	for _, key := range keys {
		for j, n := range cur {
			if pair[j] >= 0 {
				continue
			}
			for i, o := range old {
				if !oldUsed[i] && key(o) == key(n) {
					oldUsed[i], pair[j] = true, i
					break
				}
			}
		}
	}
	return pair, oldUsed
}

// diffList matches old and new components by the first key that pairs
// them (keys tried in order; each component pairs at most once) and
// records what was added, removed and changed.
func diffList[T any](c *capDiffer, kind string, old, cur []T, keys []func(T) string, name func(T) string) {
	pair, oldUsed := pairBy(old, cur, keys)
	for i, o := range old {
		if !oldUsed[i] {
			raw := mustJSON(o)
			c.d.Removed = append(c.d.Removed, CapabilityChange{Kind: kind, Name: name(o), Old: raw,
				Summary: "removed " + label(kind, name(o)) + brief(raw)})
		}
	}
	for j, n := range cur {
		if pair[j] < 0 {
			raw := mustJSON(n)
			c.d.Added = append(c.d.Added, CapabilityChange{Kind: kind, Name: name(n), New: raw,
				Summary: "new " + label(kind, name(n)) + brief(raw)})
			continue
		}
		o := old[pair[j]]
		c.fields(kind, name(n), "", label(kind, name(n)), mustJSON(o), mustJSON(n), nil)
	}
}

// hooks pairs hooks by id (unchanged), then by event and matcher in
// manifest order (changed), and says when the order they run in changed.
func (c *capDiffer) hooks(old, cur []inventory.Hook) {
	pair, oldUsed := pairBy(old, cur, []func(inventory.Hook) string{
		func(h inventory.Hook) string { return h.ID },
		func(h inventory.Hook) string { return h.Event + "\x00" + h.Matcher + "\x00" + h.Type },
		func(h inventory.Hook) string { return h.Event + "\x00" + h.Matcher },
	})
	for i, o := range old {
		if !oldUsed[i] {
			c.d.Removed = append(c.d.Removed, CapabilityChange{Kind: "hook", Name: o.ID, Old: mustJSON(o),
				Summary: "removed " + hookLabel(o, "") + hookBrief(o)})
		}
	}
	var order []int
	for j, n := range cur {
		if pair[j] < 0 {
			c.d.Added = append(c.d.Added, CapabilityChange{Kind: "hook", Name: n.ID, New: mustJSON(n),
				Summary: "new " + hookLabel(n, "") + hookBrief(n)})
			continue
		}
		order = append(order, pair[j])
		o := old[pair[j]]
		if o.ID == n.ID {
			continue
		}
		c.fields("hook", n.ID, o.ID, hookLabel(n, o.ID), mustJSON(o), mustJSON(n), map[string]bool{"id": true})
	}
	if !sort.IntsAreSorted(order) {
		c.d.Changed = append(c.d.Changed, CapabilityChange{Kind: "hook", Name: "", Field: "order",
			Summary: "the hooks run in a different order (the first block wins)"})
	}
}

func hookLabel(h inventory.Hook, was string) string {
	m := "all"
	if h.Matcher != "" && h.Matcher != "*" {
		m = bundle.Quote(h.Matcher)
	}
	id := h.ID
	if was != "" {
		id = was + " → " + h.ID
	}
	return fmt.Sprintf("hook on %s, matcher %s [hook %s]", bundle.Quote(h.Event), m, id)
}

func hookBrief(h inventory.Hook) string {
	switch {
	case h.Type == bundle.HookCommand && h.Shell:
		return ": runs shell " + shortString(h.Command)
	case h.Type == bundle.HookCommand:
		return ": runs " + argvText(h.Command, h.Args)
	case h.Type == bundle.HookHTTP:
		return ": POSTs to " + shortString(h.URL)
	}
	out := ": " + bundle.Quote(h.Type) + " hook"
	if h.Prompt != "" {
		out += ", prompt " + shortString(h.Prompt)
	}
	for _, k := range slices.Sorted(maps.Keys(h.Other)) {
		out += ", " + k + " " + showValue(h.Other[k])
	}
	return out
}

// brief describes what an added or removed component runs or reaches; for
// a document (a command, agent or skill), the shell lines it runs when
// invoked and what it grants, so the diff alone shows them.
func brief(raw json.RawMessage) string {
	var m struct {
		Command    *string         `json:"command"`
		Args       []string        `json:"args"`
		URL        string          `json:"url"`
		Path       string          `json:"path"`
		Type       string          `json:"type"`
		Sens       bool            `json:"sensitive"`
		ShellLines []string        `json:"shell_lines"`
		Grants     json.RawMessage `json:"grants"`
		Rules      json.RawMessage `json:"rules"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	switch {
	case m.URL != "":
		return ": reaches " + shortString(m.URL)
	case m.Command != nil && *m.Command != "":
		return ": runs " + argvText(*m.Command, m.Args)
	case m.Path != "":
		out := " (" + bundle.EscapePath(m.Path) + ")"
		for _, l := range m.ShellLines {
			out += "; runs " + shortString(l) + " (shell, when invoked)"
		}
		if len(m.Grants) > 0 && string(m.Grants) != "{}" && string(m.Grants) != "null" {
			out += "; grants " + showValue(m.Grants)
		}
		if len(m.Rules) > 0 && string(m.Rules) != "null" {
			out += "; rules " + showValue(m.Rules)
		}
		return out
	case m.Sens:
		return " (sensitive)"
	}
	return ""
}

func argvText(cmd string, args []string) string {
	parts := []string{shortString(cmd)}
	for _, a := range args {
		parts = append(parts, shortString(a))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// maxDiffValue bounds a value printed in a summary; the JSON form has it
// whole.
const maxDiffValue = 200

func shortString(s string) string {
	if rs := []rune(s); len(rs) > maxDiffValue {
		return jsonString(string(rs[:maxDiffValue])) + "…"
	}
	return jsonString(s)
}

// showValue renders a JSON value for a summary, terminal-safe.
func showValue(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return shortString(s)
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return "(unreadable)"
	}
	t := buf.String()
	if rs := []rune(t); len(rs) > maxDiffValue {
		t = string(rs[:maxDiffValue]) + "…"
	}
	return jsonSanitize(t)
}

// showChange renders a changed value's old and new forms for a summary.
// When both are cut at the same place and read the same, each is shown
// from a little before the first difference instead, so that a change
// past the cut is never shown as two identical strings.
func showChange(old, cur json.RawMessage) (string, string) {
	o, n := showValue(old), showValue(cur)
	if o != n {
		return o, n
	}
	text := func(raw json.RawMessage) []rune {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return []rune(s)
		}
		var buf bytes.Buffer
		if json.Compact(&buf, raw) != nil {
			return []rune(string(raw))
		}
		return []rune(buf.String())
	}
	a, b := text(old), text(cur)
	d := 0
	for d < len(a) && d < len(b) && a[d] == b[d] {
		d++
	}
	window := func(rs []rune) string {
		from := max(d-40, 0)
		to := min(from+maxDiffValue, len(rs))
		out := jsonString(string(rs[from:to]))
		if from > 0 {
			out = "…" + out
		}
		if to < len(rs) {
			out += "…"
		}
		return out
	}
	return window(a), window(b)
}

// widening says whether adding to a list field grants more (true) or
// less (false); fields not listed are neither.
var widening = map[string]bool{
	"allowed_tools": true, "tools": true, "tools_include": true, "skills": true, "mcp_servers": true,
	"host_variables": true, "allowed_env_vars": true, "hosts": true,
	"disallowed_tools": false, "tools_exclude": false,
}

// ordered fields keep their order: a reordered argv is a different argv.
var ordered = map[string]bool{"args": true}

// fields records one change per differing field of a component, walking
// into objects (env, headers, grants, other) so that a changed variable or
// header is named on its own.
func (c *capDiffer) fields(kind, name, was, lbl string, old, cur json.RawMessage, skip map[string]bool) {
	for _, fc := range fieldChanges("", old, cur) {
		if skip[fc.field] {
			continue
		}
		c.d.Changed = append(c.d.Changed, CapabilityChange{Kind: kind, Name: name, Was: was, Field: fc.field,
			Old: fc.old, New: fc.new, Summary: lbl + ": " + describeField(fc.field, fc.old, fc.new)})
	}
}

type fieldChange struct {
	field    string
	old, new json.RawMessage
}

func fieldChanges(prefix string, old, cur json.RawMessage) []fieldChange {
	var om, nm map[string]json.RawMessage
	if json.Unmarshal(old, &om) != nil || json.Unmarshal(cur, &nm) != nil || om == nil || nm == nil {
		if jsonEqual(old, cur) {
			return nil
		}
		return []fieldChange{{prefix, old, cur}}
	}
	keys := map[string]bool{}
	for k := range om {
		keys[k] = true
	}
	for k := range nm {
		keys[k] = true
	}
	var ks []string
	for k := range keys {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var out []fieldChange
	for _, k := range ks {
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		o, ok1 := om[k]
		n, ok2 := nm[k]
		switch {
		case !ok1:
			out = append(out, fieldChange{p, nil, n})
		case !ok2:
			out = append(out, fieldChange{p, o, nil})
		default:
			out = append(out, fieldChanges(p, o, n)...)
		}
	}
	return out
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y bytes.Buffer
	if json.Compact(&x, a) != nil || json.Compact(&y, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(x.Bytes(), y.Bytes())
}

func describeField(field string, old, cur json.RawMessage) string {
	f := bundle.EscapePath(field)
	switch {
	case old == nil:
		return f + " added: " + showValue(cur)
	case cur == nil:
		return f + " removed (was " + showValue(old) + ")"
	}
	base := field[strings.LastIndexByte(field, '.')+1:]
	var ov, nv []string
	if !ordered[base] && json.Unmarshal(old, &ov) == nil && json.Unmarshal(cur, &nv) == nil {
		add, rem := setDiff(ov, nv)
		if len(add)+len(rem) > 0 {
			var parts []string
			if len(add) > 0 {
				parts = append(parts, "added "+quoteList(add))
			}
			if len(rem) > 0 {
				parts = append(parts, "removed "+quoteList(rem))
			}
			verb := " changed: "
			if w, ok := widening[base]; ok {
				switch {
				case len(rem) == 0 && w, len(add) == 0 && !w:
					verb = " widened: "
				case len(add) == 0 && w, len(rem) == 0 && !w:
					verb = " narrowed: "
				}
			}
			return f + verb + strings.Join(parts, "; ")
		}
		return f + " reordered: " + showValue(cur)
	}
	o, n := showChange(old, cur)
	return f + " changed from " + o + " to " + n
}

// setDiff returns the elements of b not in a, and of a not in b.
func setDiff(a, b []string) (added, removed []string) {
	for _, s := range b {
		if !slices.Contains(a, s) {
			added = append(added, s)
		}
	}
	for _, s := range a {
		if !slices.Contains(b, s) {
			removed = append(removed, s)
		}
	}
	return added, removed
}

var setPhrases = map[string][2]string{
	"host_variable":   {"reads host variable %s", "no longer reads host variable %s"},
	"executable":      {"ships executable %s", "no longer ships executable %s"},
	"exclude_tool":    {"removes host tool %s", "no longer removes host tool %s"},
	"network_host":    {"reaches network host %s", "no longer reaches network host %s"},
	"filesystem_root": {"filesystem root %s", "no longer has filesystem root %s"},
	"format":          {"read through the %s format", "no longer read through the %s format"},
}

func (c *capDiffer) set(kind string, old, cur []string) {
	add, rem := setDiff(old, cur)
	for _, s := range rem {
		c.d.Removed = append(c.d.Removed, CapabilityChange{Kind: kind, Name: s, Old: mustJSON(s), Summary: fmt.Sprintf(setPhrases[kind][1], bundle.Quote(s))})
	}
	for _, s := range add {
		c.d.Added = append(c.d.Added, CapabilityChange{Kind: kind, Name: s, New: mustJSON(s), Summary: fmt.Sprintf(setPhrases[kind][0], bundle.Quote(s))})
	}
}

func (c *capDiffer) scalar(kind, name string, old, cur any) {
	o, n := mustJSON(old), mustJSON(cur)
	c.d.Changed = append(c.d.Changed, CapabilityChange{Kind: kind, Name: name, Field: name, Old: o, New: n,
		Summary: label(kind, name) + ": " + describeField(name, o, n)})
}

func (c *capDiffer) manifest(old, cur map[string]json.RawMessage) {
	keys := map[string]bool{}
	for k := range old {
		keys[k] = true
	}
	for k := range cur {
		keys[k] = true
	}
	var ks []string
	for k := range keys {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		o, ok1 := old[k]
		n, ok2 := cur[k]
		switch {
		case !ok1:
			c.d.Added = append(c.d.Added, CapabilityChange{Kind: "manifest", Name: k, New: n, Summary: "new " + label("manifest", k) + ": " + showValue(n)})
		case !ok2:
			c.d.Removed = append(c.d.Removed, CapabilityChange{Kind: "manifest", Name: k, Old: o, Summary: "removed " + label("manifest", k) + " (was " + showValue(o) + ")"})
		case !jsonEqual(o, n):
			ov, nv := showChange(o, n)
			c.d.Changed = append(c.d.Changed, CapabilityChange{Kind: "manifest", Name: k, Field: k, Old: o, New: n,
				Summary: label("manifest", k) + ": changed from " + ov + " to " + nv})
		}
	}
}

// ---- rendering ----

// WriteJSON writes v indented with a final newline, inert on a terminal
// like RenderJSON: for output that carries text from a bundle (a diff).
func WriteJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	if _, err := io.WriteString(w, jsonSanitize(buf.String())); err != nil {
		return fmt.Errorf("%w: %v", errRender, err)
	}
	return nil
}

// maxDiffFiles bounds each file list of the human form; --json lists all.
const maxDiffFiles = 100

// RenderDiff writes the human form of d for the bundle named name.
func RenderDiff(w io.Writer, name string, d *Diff, opts RenderOptions) error {
	if opts.Width <= 0 {
		opts.Width = 80
	}
	if opts.Subject == "" {
		opts.Subject = name
	}
	r := &renderer{opts: opts}
	r.diff(name, d)
	if _, err := w.Write(r.buf.Bytes()); err != nil {
		return fmt.Errorf("%w: %v", errRender, err)
	}
	return nil
}

// diff renders the section review prints first for a bundle trusted
// before whose source changed.
func (r *renderer) diff(name string, d *Diff) {
	r.line("%s", r.color(ansiBold, "Changes since bundle "+bundle.Quote(name)+" was last trusted"))
	r.field("  ", "trusted", d.Since.ReviewedAt.UTC().Format(time.RFC3339)+", token "+d.Since.Token.Content.Short()+"."+d.Since.Token.Capability.Short())
	for _, p := range d.Problems {
		// The command a problem names, with this call's flags.
		r.wrapItem("  "+r.color(ansiRed, "cannot compare:")+" ", "    ", bundle.CommandsIn(bundle.Sanitize(p), keepWhole(r.opts.Command)))
	}
	if d.Empty() {
		r.line("  nothing changed: the source is what was trusted")
		return
	}
	f := d.Files
	if !d.FilesCompared {
		r.heading("  Files: not compared (why: above)")
	} else {
		r.heading(fmt.Sprintf("  Files: %d added, %d removed, %d changed", len(f.Added), len(f.Removed), len(f.Changed)))
	}
	files := func(sign string, cs []FileChange) {
		for k, fc := range cs {
			if k == maxDiffFiles {
				r.line("    … and %d more (all of them: %s)", len(cs)-k, r.command("bundlectl diff --json "+bundle.Operands(name)))
				return
			}
			text := bundle.EscapePath(fc.Path)
			if fc.Type != "file" {
				text += " (" + fc.Type + ")"
			}
			if fc.Change != "" {
				text += ": " + fc.Change
			}
			r.line("    %s %s", sign, text)
		}
	}
	files("+", f.Added)
	files("-", f.Removed)
	files("~", f.Changed)
	c := d.Capabilities
	if !d.CapabilitiesCompared {
		r.heading(r.color(ansiYellow, "  Capabilities: not compared (why: above)"))
	} else {
		r.heading(r.color(ansiYellow, fmt.Sprintf("  Capabilities: %d added, %d removed, %d changed", len(c.Added), len(c.Removed), len(c.Changed))))
	}
	for _, set := range []struct {
		sign string
		cs   []CapabilityChange
	}{{"+", c.Added}, {"-", c.Removed}, {"~", c.Changed}} {
		for _, cc := range set.cs {
			r.wrapItem("    "+set.sign+" ", "      ", cc.Summary)
		}
	}
	for _, n := range d.Notes {
		r.wrapItem("  note: ", "        ", bundle.CommandsIn(bundle.Sanitize(n), keepWhole(r.opts.Command)))
	}
	r.buf.WriteByte('\n')
}

// command is cmd as RenderOptions.Command prints it.
func (r *renderer) command(cmd string) string {
	if r.opts.Command == nil {
		return cmd
	}
	return r.opts.Command(cmd)
}
