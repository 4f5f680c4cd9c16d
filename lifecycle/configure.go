package lifecycle

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/internal/jsnum"
	"github.com/bundlectl/bundlectl/internal/optvalue"
	"github.com/bundlectl/bundlectl/inventory"
	"github.com/bundlectl/bundlectl/state"
	"github.com/google/renameio/v2"
	"golang.org/x/sys/unix"
)

// MaxOptionValue bounds one option value; the whole options file is
// bounded by what the runtime reads (1 MiB).
const MaxOptionValue = 64 << 10

// ConfigOption is one user option a bundle declares (Claude Code
// userConfig, Gemini CLI settings) and whether a value is stored. A value
// is never part of it.
type ConfigOption struct {
	Key       string `json:"key"`
	Type      string `json:"type"`
	Sensitive bool   `json:"sensitive"`
	Required  bool   `json:"required"`
	EnvVar    string `json:"env_var,omitempty"`
	// Min and Max bound a number (inclusive), Options lists the only
	// values a string takes: what the host's own config dialog accepts,
	// and configure too. Where the receipt and an update not yet trusted
	// differ, the stricter bound is shown (a value must fit both).
	Min     *float64 `json:"min,omitempty"`
	Max     *float64 `json:"max,omitempty"`
	Options []string `json:"options,omitempty"`
	// Multiple: the option holds a list of strings (KEY=A KEY=B).
	Multiple bool `json:"multiple,omitempty"`
	Set      bool `json:"set"`
}

// Configured is the result of Configure and ConfigStatus.
type Configured struct {
	Name    string         `json:"name"`
	ID      string         `json:"id"`
	File    string         `json:"file"`
	Options []ConfigOption `json:"options"`
	// Changed lists the keys this call set or unset.
	Changed []string `json:"changed"`
	// Unknown lists stored keys the bundle no longer declares.
	Unknown []string `json:"unknown,omitempty"`
}

// ConfigError is a refused option: an undeclared key, a value of the
// wrong type. It never carries the value.
type ConfigError struct {
	Bundle, Key, Reason, Fix string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("%s: option %s: %s", bundle.Quote(e.Bundle), bundle.Quote(e.Key), e.Reason)
}
func (e *ConfigError) Hint() string { return e.Fix }

// OptionsFileError is an options file bundlectl cannot use: it does not
// parse, or (Problem) it cannot be opened, is not a regular file, is not
// the user's, or others may read or write it (Chmod). It is never
// overwritten: the message says what to do (with the command, for show,
// which prints no hint line), and Hint is that command alone.
type OptionsFileError struct {
	Path string
	// Problem says what is wrong with the file; empty: it does not parse.
	Problem string
	// Chmod: the fix is making the file owner-only, not moving it aside.
	Chmod bool
	Err   error
}

func (e *OptionsFileError) Error() string {
	switch {
	case e.Problem == "":
		return fmt.Sprintf("options file %s is malformed: move it aside to start again (%s), then configure the bundle", bundle.Quote(e.Path), e.Hint())
	case e.Chmod:
		return fmt.Sprintf("options file %s %s, so the runtime ignores it: make it yours alone (%s)", bundle.Quote(e.Path), e.Problem, e.Hint())
	}
	return fmt.Sprintf("options file %s %s: move it aside to start again (%s), then configure the bundle", bundle.Quote(e.Path), e.Problem, e.Hint())
}

func (e *OptionsFileError) Unwrap() error { return e.Err }

// Hint is the command that fixes the file, as printed: it moves the file
// aside, or (Chmod) makes it owner-only.
func (e *OptionsFileError) Hint() string {
	if e.Chmod {
		return "chmod 600 " + bundle.ShellArg(e.Path)
	}
	return "mv " + bundle.ShellArg(e.Path) + " " + bundle.ShellArg(e.Path+".bad")
}

// declaredOption is one option as the receipt and the source declare it.
type declaredOption struct {
	inventory.UserOption
	// Types are the types it is declared with: the receipt's and, when an
	// update not yet trusted says otherwise, the source's. A value must fit
	// each, so an unreviewed declaration cannot loosen a reviewed one.
	Types []string
	// Decls are the declarations themselves (the receipt's, the
	// source's): a value must fit the bounds of each.
	Decls []inventory.UserOption
}

// declaredOptions returns the options of the receipt's inventory and of
// the source's (an update may declare a new one before it is trusted;
// values are only ever expanded where a reviewed manifest refers to them),
// sorted by key. An option both declare is described as the receipt has
// it, made stricter by the source: sensitive or required if either says
// so, and held to both types.
func (m *Manager) declaredOptions(b *bundle.Bundle, rec state.Record) []declaredOption {
	byKey := map[string]*declaredOption{}
	add := func(inv *inventory.Inventory) {
		for _, o := range inv.UserConfig {
			cur, ok := byKey[o.Key]
			if !ok {
				byKey[o.Key] = &declaredOption{UserOption: o, Types: []string{optionType(o)}, Decls: []inventory.UserOption{o}}
				continue
			}
			cur.Decls = append(cur.Decls, o)
			cur.Sensitive = cur.Sensitive || o.Sensitive
			cur.Required = cur.Required || o.Required
			if t := optionType(o); !slices.Contains(cur.Types, t) {
				cur.Types = append(cur.Types, t)
			}
		}
	}
	if rec.Receipt != nil {
		if inv, err := ReceiptInventory(rec.Receipt); err == nil {
			add(inv)
		}
	}
	if !b.Rejected() && b.Tree != nil {
		add(inventory.Of(b))
	}
	var out []declaredOption
	for _, o := range byKey {
		out = append(out, *o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// ConfigStatus lists the options b declares and which are set.
// StoredOptions returns the keys that hold a stored value for the bundle
// b (never a value), or nil when none do or the file cannot be read.
func (m *Manager) StoredOptions(b *bundle.Bundle) map[string]bool {
	values, err := m.readConfig(b.ID)
	if err != nil || len(values) == 0 {
		return nil
	}
	keys := make(map[string]bool, len(values))
	for k := range values {
		keys[k] = true
	}
	return keys
}

func (m *Manager) ConfigStatus(b *bundle.Bundle, rec state.Record) (*Configured, error) {
	values, err := m.readConfig(b.ID)
	if err != nil {
		return nil, err
	}
	return m.configured(b, rec, values, nil), nil
}

func (m *Manager) configured(b *bundle.Bundle, rec state.Record, values map[string]optvalue.Value, changed []string) *Configured {
	c := &Configured{Name: b.Name, ID: b.ID, File: m.configPath(b.ID), Options: []ConfigOption{}, Changed: changed}
	if c.Changed == nil {
		c.Changed = []string{}
	}
	declared := map[string]bool{}
	for _, o := range m.declaredOptions(b, rec) {
		declared[o.Key] = true
		v, set := values[o.Key]
		// A required option's empty value counts as not set, as list
		// and show say (Claude Code: "required but not provided").
		set = set && !(o.Required && v.Empty())
		co := ConfigOption{Key: o.Key, Type: strings.Join(o.Types, " and "), Sensitive: o.Sensitive, Required: o.Required, EnvVar: o.EnvVar, Set: set}
		co.Min, co.Max, co.Options = o.bounds()
		co.Multiple = o.multiple()
		c.Options = append(c.Options, co)
	}
	for k := range values {
		if !declared[k] {
			c.Unknown = append(c.Unknown, k)
		}
	}
	sort.Strings(c.Unknown)
	return c
}

func optionType(o inventory.UserOption) string {
	if o.Type == "" {
		return "string"
	}
	return o.Type
}

// Sensitive reports whether the bundle named name declares key sensitive
// (false for an undeclared key: Configure refuses it anyway).
func (m *Manager) Sensitive(name, key string) (bool, error) {
	b, err := m.Find(m.Discover(), name)
	if err != nil {
		return false, err
	}
	s, err := m.LoadState()
	if err != nil {
		return false, err
	}
	rec, _ := s.Bundle(b.ID)
	var keys []string
	for _, o := range m.declaredOptions(b, rec) {
		if o.Key == key {
			return o.Sensitive, nil
		}
		keys = append(keys, bundle.Quote(o.Key))
	}
	// Said before any value is asked for: a mistyped key is not worth a
	// secret typed in vain.
	return false, undeclared(b, name, key, declaredList(keys))
}

// undeclared refuses key, which the bundle b does not declare (known says
// which it does). The options of an invalid source are none: the review
// says why, which is the thing to fix, rather than the list.
func undeclared(b *bundle.Bundle, name, key, known string) *ConfigError {
	if b.Rejected() {
		reason := "is not declared by the bundle as bundlectl can use it: the bundle is invalid, so its options are not read"
		if known != declaredList(nil) {
			reason += " (its trusted receipt's: " + known + ")"
		}
		return &ConfigError{Bundle: name, Key: key, Reason: reason, Fix: "bundlectl review " + bundle.ShellArg(name)}
	}
	return &ConfigError{Bundle: name, Key: key, Reason: "is not declared by the bundle (" + known + ")", Fix: "bundlectl configure " + bundle.ShellArg(name)}
}

// declaredList says which option keys (quoted) a bundle declares.
func declaredList(keys []string) string {
	if len(keys) == 0 {
		return "it declares none"
	}
	return "it declares " + strings.Join(keys, ", ")
}

// Configure stores one value for each key of set; see ConfigureValues.
func (m *Manager) Configure(name string, set map[string]string, unset []string) (*Configured, error) {
	many := make(map[string][]string, len(set))
	for k, v := range set {
		many[k] = []string{v}
	}
	return m.ConfigureValues(name, many, unset)
}

// ConfigureValues stores option values for the bundle named name (set)
// and removes others (unset), in $BUNDLECTL_HOME/config/<id>.json, mode
// 0600, replaced atomically under the state lock (re-read after the lock
// is taken, so concurrent calls lose nothing). Every key must be declared
// by the bundle; each value must fit its type and hold no NUL. An option
// declared multiple stores the values given as a list (one value is a list
// of one), as Claude Code stores it; any other option takes exactly one.
// No error and no result ever carries a value.
func (m *Manager) ConfigureValues(name string, set map[string][]string, unset []string) (*Configured, error) {
	b, err := m.Find(m.Discover(), name)
	if err != nil {
		return nil, err
	}
	s, err := m.LoadState()
	if err != nil {
		return nil, err
	}
	rec, _ := s.Bundle(b.ID)
	decl := map[string]declaredOption{}
	var keys []string
	for _, o := range m.declaredOptions(b, rec) {
		decl[o.Key] = o
		keys = append(keys, bundle.Quote(o.Key))
	}
	known := declaredList(keys)
	stored := map[string]optvalue.Value{}
	for k, vs := range set {
		o, ok := decl[k]
		if !ok {
			return nil, undeclared(b, name, k, known)
		}
		multiple := o.multiple()
		if !multiple && len(vs) != 1 {
			return nil, &ConfigError{Bundle: name, Key: k, Reason: fmt.Sprintf("was given %d values; only an option declared multiple takes more than one (Claude Code refuses a list for any other)", len(vs)), Fix: "bundlectl configure " + bundle.ShellArg(name)}
		}
		total := 0
		for _, v := range vs {
			total += len(v) + 1
			if err := checkOptionValue(o, v); err != nil {
				// The list shows each option's type and bounds.
				return nil, &ConfigError{Bundle: name, Key: k, Reason: err.Error(), Fix: "bundlectl configure " + bundle.ShellArg(name)}
			}
		}
		if total > MaxOptionValue {
			return nil, &ConfigError{Bundle: name, Key: k, Reason: fmt.Sprintf("the values are longer than %d bytes together", MaxOptionValue), Fix: "bundlectl configure " + bundle.ShellArg(name)}
		}
		if multiple {
			stored[k] = optvalue.ListOf(vs...)
		} else {
			stored[k] = optvalue.Of(storedForm(o, vs[0]))
		}
		if o.Required && stored[k].Empty() {
			// Claude Code's dialog refuses it, and holds an empty value
			// "required but not provided": storing it would only turn a
			// value into a missing one.
			return nil, &ConfigError{Bundle: name, Key: k, Reason: "is required, and an empty value counts as not set, so nothing was stored (to remove a stored value, unset it)", Fix: "bundlectl configure " + bundle.ShellArg(name) + " " + bundle.ShellArg(k)}
		}
	}
	var changed []string
	var values map[string]optvalue.Value
	_, err = m.stateStore().Update(func(*state.State) error {
		var rerr error
		if values, rerr = m.readConfig(b.ID); rerr != nil {
			return rerr
		}
		for _, k := range unset {
			if _, ok := values[k]; ok {
				delete(values, k)
				changed = append(changed, k)
			} else if _, ok := decl[k]; !ok {
				return &ConfigError{Bundle: name, Key: k, Reason: "is neither set nor declared", Fix: "bundlectl configure " + bundle.ShellArg(name)}
			}
		}
		for k, v := range stored {
			values[k] = v
			changed = append(changed, k)
		}
		return m.writeConfig(b.ID, values)
	})
	if err != nil {
		return nil, stateErr(err)
	}
	sort.Strings(changed)
	return m.configured(b, rec, values, changed), nil
}

func checkOptionValue(o declaredOption, v string) error {
	switch {
	case strings.IndexByte(v, 0) >= 0:
		return errors.New("the value contains a NUL byte")
	case len(v) > MaxOptionValue:
		return fmt.Errorf("the value is longer than %d bytes", MaxOptionValue)
	case !utf8.ValidString(v):
		// The options file is JSON: each invalid byte would be stored as
		// U+FFFD, a different value from the one given.
		return errors.New("the value is not valid UTF-8 text, and would be stored altered")
	}
	for _, d := range o.Decls {
		switch t := optionType(d); t {
		case "number":
			n, ok := jsnum.Parse(v)
			if !ok {
				// Claude Code's config dialog keeps Number() of the trimmed
				// input when it is finite: "0x10" is 16, "1_000" or
				// "Infinity" no number.
				return errors.New("wants a number, as JavaScript's Number() reads one (5, -2.5, 1e3, 0x10), finite")
			}
			if d.Min != nil && n < *d.Min {
				return fmt.Errorf("must be at least %s (the option's min), as Claude Code requires", formatBound(*d.Min))
			}
			if d.Max != nil && n > *d.Max {
				return fmt.Errorf("must be at most %s (the option's max), as Claude Code requires", formatBound(*d.Max))
			}
		case "boolean":
			if v != "true" && v != "false" {
				return errors.New("wants true or false")
			}
		case "directory", "file":
			if !filepath.IsAbs(v) {
				return fmt.Errorf("wants an absolute path to a %s", t)
			}
		case "string":
			if d.Options != nil && !slices.Contains(d.Options, v) {
				// Claude Code reads a stored value outside them as unset.
				return fmt.Errorf("must be one of the option's options: %s", strings.Join(quoted(d.Options), ", "))
			}
		}
		if d.EnvVar != "" && !o.Sensitive && strings.ContainsAny(v, "\r\n") {
			// Gemini CLI writes a setting that is not sensitive to a
			// .env file, and refuses a value holding a line break.
			return errors.New("holds a line break, which Gemini CLI refuses for a setting that is not sensitive")
		}
	}
	return nil
}

// multiple reports whether every declaration of o makes it a list of
// strings (a string option with multiple: true). Claude Code refuses a
// list for an option that is not multiple, and takes a single string for
// one that is; so a list is stored only where every declaration takes it.
func (o declaredOption) multiple() bool {
	for _, d := range o.Decls {
		if !d.Multiple || optionType(d) != "string" {
			return false
		}
	}
	return len(o.Decls) > 0
}

// storedForm is the text Configure stores for v, which checkOptionValue
// accepted: for a number option, JavaScript's String() of the number
// Number() reads ("0x10" is stored as 16, "5.0" as 5, 1e21 as 1e+21), what
// Claude Code stores and passes to its processes; other values as given.
func storedForm(o declaredOption, v string) string {
	for _, d := range o.Decls {
		if optionType(d) == "number" {
			if n, ok := jsnum.Parse(v); ok {
				return jsnum.Format(n)
			}
		}
	}
	return v
}

// BoundsText describes an option's bounds for a listing: ", at least
// 1, at most 5", ", one of "a", "b"", or "" for none.
func BoundsText(lo, hi *float64, options []string) string {
	var s string
	if lo != nil {
		s += ", at least " + formatBound(*lo)
	}
	if hi != nil {
		s += ", at most " + formatBound(*hi)
	}
	switch {
	case options == nil:
	case len(options) == 0:
		s += ", no value fits every declaration of it"
	default:
		s += ", one of " + strings.Join(quoted(options), ", ")
	}
	return s
}

// formatBound writes a bound as Claude Code's messages do (String()).
func formatBound(f float64) string { return jsnum.Format(f) }

func quoted(l []string) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = bundle.Quote(s)
	}
	return out
}

// bounds are the strictest bounds among o's declarations: the greatest
// min, the least max, the options every declaration allows (in the first
// declaration's order).
func (o declaredOption) bounds() (lo, hi *float64, options []string) {
	for _, d := range o.Decls {
		if d.Type != "number" {
			// Claude Code reads min and max of a number only.
			d.Min, d.Max = nil, nil
		}
		if d.Min != nil && (lo == nil || *d.Min > *lo) {
			lo = d.Min
		}
		if d.Max != nil && (hi == nil || *d.Max < *hi) {
			hi = d.Max
		}
		if d.Options == nil {
			continue
		}
		if options == nil {
			options = append([]string{}, d.Options...)
			continue
		}
		options = slices.DeleteFunc(options, func(s string) bool { return !slices.Contains(d.Options, s) })
	}
	return lo, hi, options
}

// configDoc is the options file: each value a string, or a list of
// strings for a multiple option.
type configDoc struct {
	Values map[string]optvalue.Value `json:"values"`
}

// readConfig reads the options file of id (empty when missing). A file
// that is not a regular file of the current user, that others can read or
// write, or that does not parse is an error naming it: it is never
// overwritten, because it may hold secrets bundlectl did not write.
func (m *Manager) readConfig(id string) (map[string]optvalue.Value, error) {
	p := m.configPath(id)
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return map[string]optvalue.Value{}, nil
	}
	if err != nil {
		return nil, &OptionsFileError{Path: p, Problem: "cannot be opened: " + err.Error(), Err: err}
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return nil, &OptionsFileError{Path: p, Problem: "is not a regular file"}
	case st.Uid != uint32(os.Geteuid()):
		return nil, &OptionsFileError{Path: p, Problem: "is not owned by you"}
	case st.Mode&0o077 != 0:
		return nil, &OptionsFileError{Path: p, Problem: fmt.Sprintf("can be read or written by others (mode %04o)", st.Mode&0o777), Chmod: true}
	}
	data, err := io.ReadAll(io.LimitReader(f, 1<<20+1))
	if err != nil {
		return nil, err
	}
	if len(data) > 1<<20 {
		return nil, fmt.Errorf("options file %s is over 1 MiB", bundle.Quote(p))
	}
	var doc configDoc
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, &OptionsFileError{Path: p}
	}
	if doc.Values == nil {
		doc.Values = map[string]optvalue.Value{}
	}
	return doc.Values, nil
}

// writeConfig replaces the options file of id atomically: a temporary file
// in the same directory, mode 0600 whatever the umask, synced, renamed,
// the directory synced. The config directory is created 0700. It refuses
// to replace anything that is not a regular file.
func (m *Manager) writeConfig(id string, values map[string]optvalue.Value) error {
	p := m.configPath(id)
	dir := filepath.Dir(p)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() || fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("%s is not a directory", bundle.Quote(dir))
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return err
		}
	}
	if fi, err := os.Lstat(p); err == nil && !fi.Mode().IsRegular() {
		return &OptionsFileError{Path: p, Problem: "is not a regular file"}
	}
	data, err := json.MarshalIndent(configDoc{Values: values}, "", "  ")
	if err != nil {
		return err
	}
	// The temporary file goes beside the options file, never to $TMPDIR
	// (renameio's default when it is on the same file system): it holds
	// every value, sensitive ones too, and one a killed configure left in
	// the 0700 config directory is gc's to remove (removeStaleTemps).
	pf, err := renameio.NewPendingFile(p, renameio.WithTempDir(dir), renameio.WithPermissions(0o600))
	if err != nil {
		return err
	}
	defer pf.Cleanup()
	if err := pf.Chmod(0o600); err != nil {
		return err
	}
	if _, err := pf.Write(append(data, '\n')); err != nil {
		return err
	}
	if err := pf.CloseAtomicallyReplace(); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// checkStoredValue checks a stored value against o as ConfigureValues
// would have: a list only for a multiple option, each string fitting.
func checkStoredValue(o declaredOption, v optvalue.Value) error {
	if v.IsList && !o.multiple() {
		return errors.New("holds a list of values, which Claude Code refuses for an option that is not multiple")
	}
	for _, s := range v.Items() {
		if err := checkOptionValue(o, s); err != nil {
			return err
		}
	}
	return nil
}
