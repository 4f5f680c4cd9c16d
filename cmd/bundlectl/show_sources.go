package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/state"
)

// showSources is the part of `show` about where a bundle came from, its
// switched-off components and its user options (keys and whether they
// are set, never values).
type showSources struct {
	// InstalledFrom is the recorded source (docs/sources.md), null for a
	// bundle placed by hand.
	InstalledFrom json.RawMessage `json:"installed_from"`
	// Off lists the switched-off components; Stale marks those that name
	// nothing in the reviewed inventory (a hook that changed has a new id).
	Off     []showSwitch             `json:"off"`
	Options []lifecycle.ConfigOption `json:"options"`
	// OptionsError says why the options file could not be read (the
	// runtime refuses it too); then Options is empty.
	OptionsError string `json:"options_error,omitempty"`
	// Hooks are the reviewed hooks with the ids switches take (empty
	// when the bundle is not trusted: review prints them).
	Hooks []showHook `json:"hooks"`
}

type showHook struct {
	ID      string `json:"id"`
	Event   string `json:"event"`
	Matcher string `json:"matcher,omitempty"`
	Off     bool   `json:"off"`
}

type showSwitch struct {
	Kind  string `json:"kind"`
	Name  string `json:"name"`
	Stale bool   `json:"stale,omitempty"`
}

func sourcesOf(m *lifecycle.Manager, b *bundle.Bundle, rec state.Record) showSources {
	out := showSources{InstalledFrom: json.RawMessage("null"), Off: []showSwitch{}, Options: []lifecycle.ConfigOption{}, Hooks: []showHook{}}
	if len(rec.Source) > 0 {
		out.InstalledFrom = rec.Source
	}
	stale := map[state.Switch]bool{}
	if rec.Receipt != nil {
		if inv, err := lifecycle.ReceiptInventory(rec.Receipt); err == nil {
			for _, sw := range lifecycle.StaleSwitches(rec, inv) {
				stale[sw] = true
			}
			for _, h := range inv.Hooks {
				out.Hooks = append(out.Hooks, showHook{ID: h.ID, Event: h.Event, Matcher: h.Matcher, Off: rec.IsOff("hook", h.ID)})
			}
		}
	}
	for _, sw := range rec.Off {
		out.Off = append(out.Off, showSwitch{Kind: sw.Kind, Name: sw.Name, Stale: stale[sw]})
	}
	if c, err := m.ConfigStatus(b, rec); err == nil {
		out.Options = c.Options
	} else {
		out.OptionsError = err.Error()
	}
	return out
}

func (s showSources) print(w io.Writer) {
	if len(s.InstalledFrom) > 0 && string(s.InstalledFrom) != "null" {
		if src, err := lifecycle.RecordedSource(state.Record{Source: s.InstalledFrom}); err == nil && src != nil {
			fmt.Fprintf(w, "from:     %s\n", src.String())
		}
	}
	for i, h := range s.Hooks {
		label := "          "
		if i == 0 {
			label = "hooks:    "
		}
		off := ""
		if h.Off {
			off = " (switched off)"
		}
		fmt.Fprintf(w, "%s%s on %s matcher %s%s\n", label, h.ID, bundle.Quote(h.Event), bundle.Quote(h.Matcher), off)
	}
	if len(s.Off) > 0 {
		var parts []string
		for _, sw := range s.Off {
			p := sw.Kind + " " + bundle.Quote(sw.Name)
			if sw.Stale {
				p += " (names nothing in the reviewed inventory)"
			}
			parts = append(parts, p)
		}
		fmt.Fprintf(w, "off:      %s\n", strings.Join(parts, "\n          "))
	}
	if len(s.Options) > 0 {
		var parts []string
		for _, o := range s.Options {
			v := "not set"
			if o.Set {
				v = "set"
			}
			parts = append(parts, bundle.Quote(o.Key)+" "+v)
		}
		fmt.Fprintf(w, "options:  %s\n", strings.Join(parts, ", "))
	}
	if s.OptionsError != "" {
		fmt.Fprintf(w, "options:  cannot be read: %s\n", bundle.Sanitize(s.OptionsError))
	}
}
