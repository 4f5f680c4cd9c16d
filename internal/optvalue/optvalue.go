package optvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/bundlectl/bundlectl/internal/jsnum"
	"github.com/bundlectl/bundlectl/inventory"
)

// Value is a stored option value: Text, or List when IsList.
type Value struct {
	Text   string
	List   []string
	IsList bool
}

// Of is a single string value.
func Of(s string) Value { return Value{Text: s} }

// ListOf is a list value (a multiple option); one value is a list of one.
func ListOf(l ...string) Value { return Value{List: append([]string{}, l...), IsList: true} }

// Empty reports whether the value counts as not provided for a required
// option: Claude Code's test is `value === undefined || value === ""`, so
// only the empty string is (an empty list is an array, not "").
func (v Value) Empty() bool { return !v.IsList && v.Text == "" }

// Items are the strings the value holds: the list, or the text alone.
func (v Value) Items() []string {
	if v.IsList {
		return v.List
	}
	return []string{v.Text}
}

// String is JavaScript's String(value): the text, or the list joined with
// "," (String(["a","b"]) is "a,b").
func (v Value) String() string {
	if v.IsList {
		return strings.Join(v.List, ",")
	}
	return v.Text
}

// ProcessText is the text a process gets for the stored value v of the
// option o: String(v), and for a number option whose text Number() reads,
// String() of that number (a value stored as "5.0" or "0x10" by hand or by
// an earlier bundlectl is passed as 5 or 16, as Claude Code would have
// stored it).
func ProcessText(o inventory.UserOption, v Value) string {
	if o.Type == "number" && !v.IsList {
		if n, ok := jsnum.Parse(v.Text); ok {
			return jsnum.Format(n)
		}
	}
	return v.String()
}

// MarshalJSON writes a JSON string or an array of strings.
func (v Value) MarshalJSON() ([]byte, error) {
	if v.IsList {
		l := v.List
		if l == nil {
			l = []string{}
		}
		return json.Marshal(l)
	}
	return json.Marshal(v.Text)
}

// UnmarshalJSON reads a JSON string or an array of strings; anything else
// is an error.
func (v *Value) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var l []string
		if err := json.Unmarshal(b, &l); err != nil {
			return errors.New("an option value is a string or an array of strings")
		}
		if l == nil {
			l = []string{}
		}
		*v = Value{List: l, IsList: true}
		return nil
	}
	var s string
	if bytes.Equal(b, []byte("null")) || json.Unmarshal(b, &s) != nil {
		return errors.New("an option value is a string or an array of strings")
	}
	*v = Value{Text: s}
	return nil
}
