package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/spf13/cobra"
)

type configureOptions struct {
	stdin string
	unset []string
}

func newConfigureCmd(g *globals) *cobra.Command {
	var o configureOptions
	c := &cobra.Command{
		Use:   "configure <name> [KEY=VALUE | KEY]...",
		Short: "set the user options a bundle declares (Claude Code userConfig, Gemini CLI settings)",
		Long: `Configure stores values for the options a bundle declares (Claude Code
userConfig, Gemini CLI settings) in $BUNDLECTL_HOME/config/<scope>_<hex>_<name>.json,
mode 0600, replaced atomically. The runtime expands ${user_config.KEY} from
them and exports CLAUDE_PLUGIN_OPTION_<KEY> to the bundle's processes.

With no KEY it lists the declared options and whether each is set; values
are never printed. KEY=VALUE sets a value, which must fit the option's
type and bounds as its host checks them (a number's min and max, a string's
options; the listing shows them). A number is read as JavaScript's Number()
reads it (0x10 is 16) and stored as String() writes it. An option declared
multiple (a list of strings) takes the key repeated, KEY=A KEY=B, and stores
the list given in place of the one stored; its processes get the values
joined with "," as Claude Code passes them. A sensitive option's value is
never taken from the command line (other processes can read it there, and
it stays in shell history): pass --stdin KEY to read it from stdin, or give
just KEY to be prompted for it without echo when stdin is a terminal.
--unset KEY removes a value.` + exitStatus(exit0, exit1, "2  usage error (an undeclared key, a sensitive value on the command line)", exit4),
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(c *cobra.Command, a []string) error { return runConfigure(g, a[0], a[1:], o) },
	}
	c.Flags().StringVar(&o.stdin, "stdin", "", "read the value of this KEY from stdin (one value, to the end of input: Ctrl-D on a terminal, where it is not echoed; a final newline is dropped; an empty value stores nothing)")
	c.Flags().StringArrayVar(&o.unset, "unset", nil, "remove the value of this KEY (repeatable)")
	return c
}

// maxTerminalLine is the longest line a terminal in canonical mode hands
// a reader (Linux's line buffer is 4096 bytes, one kept for the newline):
// what is typed or pasted beyond it is dropped.
const maxTerminalLine = 4095

// errLineCut says a prompted value filled the terminal's line buffer.
var errLineCut = fmt.Errorf("the value is %d bytes or longer, as long as a terminal line can be, so the terminal may have cut it; nothing was stored", maxTerminalLine)

// promptValue reads the value of key on the terminal f without echo. An
// empty line and the end of input store nothing: neither is taken for a
// value that would silently replace the one stored. With whole (--stdin
// on a terminal) it reads up to the end of input, as --stdin reads a pipe.
func promptValue(f *os.File, g *globals, name, key string, whole bool) (string, error) {
	prompt := "value for " + bundle.Quote(key) + " (not shown): "
	if whole {
		prompt = "value for " + bundle.Quote(key) + " (not shown; end it with Ctrl-D on a line of its own): "
	}
	v, err := readSecret(f, g.stderr, prompt, lifecycle.MaxOptionValue, whole)
	switch {
	case errors.Is(err, errLineCut):
		// The hint is a command that works as printed: the file the value
		// is in is the user's to name, so the form goes in the message.
		return "", &codeError{code: exitUsage, err: fmt.Errorf("option %s: %w (pipe it in from a file: bundlectl configure --stdin %s %s < <the file>)", bundle.Quote(key), err, bundle.ShellArg(key), bundle.Operands(name)),
			hint: "bundlectl configure --help"}
	case errors.Is(err, io.EOF):
		return "", &codeError{code: exitUsage, err: fmt.Errorf("option %s: no value was typed (end of input); nothing was stored", bundle.Quote(key)),
			hint: "bundlectl configure " + bundle.Operands(name, key)}
	case err != nil:
		return "", err
	case v == "":
		return "", &codeError{code: exitUsage, err: fmt.Errorf("option %s: an empty value was typed; nothing was stored (to remove a stored value, unset it)", bundle.Quote(key)),
			hint: "bundlectl configure --unset " + bundle.ShellArg(key) + " " + bundle.Operands(name)}
	}
	return v, nil
}

func runConfigure(g *globals, name string, pairs []string, o configureOptions) error {
	m, err := g.manager()
	if err != nil {
		return err
	}
	// Each key's values in the order given: a multiple option takes the
	// key repeated (tags=a tags=b), any other option one value.
	set := map[string][]string{}
	isSensitive := func(key string) (bool, error) {
		sens, err := m.Sensitive(name, key)
		var ce *lifecycle.ConfigError
		if errors.As(err, &ce) {
			return false, &codeError{code: exitUsage, err: err, hint: ce.Fix}
		}
		return sens, err
	}
	for _, p := range pairs {
		key, value, hasValue := strings.Cut(p, "=")
		if key == "" {
			return &usageError{errors.New("an option is KEY=VALUE or KEY"), "bundlectl configure --help"}
		}
		sens, err := isSensitive(key)
		if err != nil {
			return err
		}
		if !hasValue {
			f, ok := g.stdin.(*os.File)
			if !ok || !isTerminal(f) || o.stdin != "" {
				return &codeError{code: exitUsage, err: fmt.Errorf("option %s has no value and stdin is not a terminal to prompt on", bundle.Quote(key)),
					hint: "bundlectl configure --stdin " + bundle.ShellArg(key) + " " + bundle.Operands(name)}
			}
			v, err := promptValue(f, g, name, key, false)
			if err != nil {
				return err
			}
			set[key] = append(set[key], v)
			continue
		}
		if sens {
			// The value is on our command line already; say nothing of it.
			return &codeError{code: exitUsage, err: fmt.Errorf("option %s is sensitive: its value is not taken from the command line, where other processes can read it and shell history keeps it", bundle.Quote(key)),
				hint: "bundlectl configure --stdin " + bundle.ShellArg(key) + " " + bundle.Operands(name)}
		}
		set[key] = append(set[key], value)
	}
	if o.stdin != "" {
		if f, ok := g.stdin.(*os.File); ok && isTerminal(f) {
			// Typed at a terminal: without echo, as the prompt reads it,
			// never shown on the screen.
			if _, err := isSensitive(o.stdin); err != nil {
				return err // an undeclared key, said before the value is typed
			}
			v, err := promptValue(f, g, name, o.stdin, true)
			if err != nil {
				return err
			}
			set[o.stdin] = append(set[o.stdin], v)
		} else {
			data, err := io.ReadAll(io.LimitReader(g.stdin, lifecycle.MaxOptionValue+2))
			if err != nil {
				return err
			}
			v := strings.TrimSuffix(string(data), "\n")
			v = strings.TrimSuffix(v, "\r")
			if v == "" {
				if _, err := isSensitive(o.stdin); err != nil {
					return err // an undeclared key is the first thing wrong
				}
				// As at the prompt: nothing piped in (an unset variable,
				// `echo "$TOKEN"`) must not silently replace a stored
				// value with an empty one.
				return &codeError{code: exitUsage, err: fmt.Errorf("option %s: stdin was empty; nothing was stored (to remove a stored value, unset it)", bundle.Quote(o.stdin)),
					hint: "bundlectl configure --unset " + bundle.ShellArg(o.stdin) + " " + bundle.Operands(name)}
			}
			set[o.stdin] = append(set[o.stdin], v)
		}
	}
	var res *lifecycle.Configured
	if len(set) == 0 && len(o.unset) == 0 {
		b, err := m.Find(m.Discover(), name)
		if err != nil {
			return err
		}
		s, err := m.LoadState()
		if err != nil {
			return err
		}
		rec, _ := s.Bundle(b.ID)
		if res, err = m.ConfigStatus(b, rec); err != nil {
			return err
		}
	} else if res, err = m.ConfigureValues(name, set, o.unset); err != nil {
		var ce *lifecycle.ConfigError
		if errors.As(err, &ce) {
			return &codeError{code: exitUsage, err: err, hint: ce.Fix}
		}
		return err
	}
	if g.json {
		return writeJSON(g.stdout, res)
	}
	w := g.stdout
	if len(res.Changed) > 0 {
		var ks []string
		for _, k := range res.Changed {
			ks = append(ks, bundle.Quote(k))
		}
		fmt.Fprintf(w, "configured %s: %s (in %s)\n", bundle.Quote(res.Name), strings.Join(ks, ", "), bundle.Quote(res.File))
	}
	printOptions(w, res)
	return nil
}

// printOptions lists declared options and whether each is set, never a
// value.
func printOptions(w io.Writer, res *lifecycle.Configured) {
	if len(res.Options) == 0 {
		fmt.Fprintf(w, "%s declares no options\n", bundle.Quote(res.Name))
	}
	for _, o := range res.Options {
		kind := o.Type
		if o.Sensitive {
			kind += ", sensitive"
		}
		if o.Required {
			kind += ", required"
		}
		kind += lifecycle.BoundsText(o.Min, o.Max, o.Options)
		if o.Multiple {
			kind += ", a list of strings: " + bundle.ShellArg(o.Key) + "=A " + bundle.ShellArg(o.Key) + "=B"
		}
		state := "not set"
		if o.Set {
			state = "set"
		}
		fmt.Fprintf(w, "  %s (%s): %s\n", bundle.Quote(o.Key), kind, state)
	}
	for _, k := range res.Unknown {
		fmt.Fprintf(w, "  %s: set, but no longer declared (remove it with --unset)\n", bundle.Quote(k))
	}
}
