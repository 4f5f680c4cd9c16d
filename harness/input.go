package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/bundlectl/bundlectl/bundle"
)

// MaxInputBytes bounds a tool input; larger input is refused before
// parsing.
const MaxInputBytes = 4 << 20

// Bounds on what an InputError carries, so a huge or hostile input cannot
// make a huge message.
const (
	maxInputProblems   = 20
	maxProblemsInError = 3
	maxProblemText     = 160
)

// paramsURL is the base URL of every params schema. A relative $ref
// resolves against it and is then refused like any other URL.
const paramsURL = "bundlectl:///params.json"

// RefusedURLError is the loader error for any URL a schema references:
// params schemas are compiled offline, from the manifest alone (only the
// JSON Schema metaschemas, which the library embeds, are available).
type RefusedURLError struct{ URL string }

func (e *RefusedURLError) Error() string {
	return fmt.Sprintf("schema reference %q refused: params schemas are never fetched", e.URL)
}

type refusingLoader struct{}

func (refusingLoader) Load(url string) (any, error) { return nil, &RefusedURLError{URL: url} }

// SchemaError is returned when a params schema does not compile.
type SchemaError struct{ Err error }

func (e *SchemaError) Error() string {
	return "params is not a usable JSON Schema: " + truncateText(e.Err.Error(), 400)
}

func (e *SchemaError) Unwrap() error { return e.Err }

// anyObject is the schema of a tool without params.
var anyObject = json.RawMessage(`{"type":"object"}`)

// CompileParams compiles a tool's params schema (JSON Schema, draft
// 2020-12 unless the schema's $schema names another embedded draft).
// Empty params accept any JSON object. Every URL reference other than the
// embedded metaschemas is refused; patterns use Go's RE2 engine, so
// matching is linear time. "format" is an annotation, as the draft
// specifies, not an assertion.
func CompileParams(schema json.RawMessage) (*jsonschema.Schema, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		schema = anyObject
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, &SchemaError{Err: err}
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refusingLoader{})
	if err := c.AddResource(paramsURL, doc); err != nil {
		return nil, &SchemaError{Err: err}
	}
	sch, err := c.Compile(paramsURL)
	if err != nil {
		return nil, &SchemaError{Err: err}
	}
	return sch, nil
}

// InputProblem is one place where the input breaks the schema. Path is a
// JSON pointer into the input ("" is the whole input).
type InputProblem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// InputError is returned when a tool input is refused; no process was
// started. Either Syntax is set (not a single JSON value) or Problems
// lists where it breaks the schema. Neither repeats input values.
type InputError struct {
	Syntax   string
	Problems []InputProblem
	// More counts problems left out of Problems.
	More int
}

func (e *InputError) Error() string {
	if e.Syntax != "" {
		return "tool input is not a single JSON value: " + e.Syntax
	}
	var b strings.Builder
	b.WriteString("tool input does not match the tool's params schema")
	for i, p := range e.Problems {
		if i == maxProblemsInError {
			fmt.Fprintf(&b, "; and %d more", len(e.Problems)-i+e.More)
			break
		}
		path := p.Path
		if path == "" {
			path = "(root)"
		}
		fmt.Fprintf(&b, "; at %s: %s", path, p.Message)
	}
	return b.String()
}

// ValidateInput checks that input is exactly one JSON value with no
// duplicate object keys, and that it matches sch; a nil sch accepts any
// JSON object. Numbers are decoded as json.Number, so no precision is
// lost before the check. Duplicate keys are refused because parsers
// disagree on which one wins: the child must see what was validated.
func ValidateInput(sch *jsonschema.Schema, input []byte) error {
	if len(input) > MaxInputBytes {
		return &InputError{Syntax: fmt.Sprintf("%d bytes, more than the %d-byte limit", len(input), MaxInputBytes)}
	}
	if err := checkSingleValue(input); err != nil {
		return &InputError{Syntax: truncateText(err.Error(), maxProblemText)}
	}
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return &InputError{Syntax: truncateText(err.Error(), maxProblemText)}
	}
	if sch == nil {
		if _, ok := v.(map[string]any); !ok {
			return &InputError{Problems: []InputProblem{{Path: "", Message: "got " + jsonKind(v) + ", want object"}}}
		}
		return nil
	}
	err := sch.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &InputError{Problems: []InputProblem{{Message: truncateText(err.Error(), maxProblemText)}}}
	}
	ie := &InputError{}
	collectProblems(ve, ie)
	if len(ie.Problems) == 0 {
		ie.Problems = []InputProblem{{Message: "validation failed"}}
	}
	// The library visits properties in map order; sort for stable output.
	sort.SliceStable(ie.Problems, func(i, j int) bool {
		a, b := ie.Problems[i], ie.Problems[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Message < b.Message
	})
	return ie
}

var printer = message.NewPrinter(language.English)

// collectProblems gathers the leaves of a validation error tree: the
// innermost failures, which name the offending instance paths.
func collectProblems(ve *jsonschema.ValidationError, ie *InputError) {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			collectProblems(c, ie)
		}
		return
	}
	if len(ie.Problems) == maxInputProblems {
		ie.More++
		return
	}
	ie.Problems = append(ie.Problems, InputProblem{
		Path:    truncateText(jsonPointer(ve.InstanceLocation), maxProblemText),
		Message: truncateText(problemText(ve.ErrorKind), maxProblemText),
	})
}

// problemText is the library's message, except for the kinds whose
// message quotes the input value itself.
func problemText(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Pattern:
		return fmt.Sprintf("does not match pattern %q", k.Want)
	case *kind.Format:
		return fmt.Sprintf("is not a valid %q", k.Want)
	case *kind.ContentEncoding:
		return fmt.Sprintf("is not %q encoded", k.Want)
	case *kind.ContentMediaType:
		return fmt.Sprintf("is not of media type %q", k.Want)
	case nil:
		return "validation failed"
	}
	return k.LocalizedString(printer)
}

func jsonPointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		b.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return b.String()
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// truncateText escapes control and bidirectional characters and cuts s
// to at most n bytes of escaped text, marking the cut.
func truncateText(s string, n int) string {
	s = bundle.Sanitize(s)
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}

// checkSingleValue walks input token by token: exactly one JSON value,
// nothing after it, and no object with the same key twice.
func checkSingleValue(input []byte) error {
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.UseNumber()
	if err := walkValue(dec, 0); err != nil {
		if err == io.EOF {
			return errors.New("empty input")
		}
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("more data after the first JSON value")
	}
	return nil
}

// maxInputDepth is encoding/json's own nesting limit.
const maxInputDepth = 10000

func walkValue(dec *json.Decoder, depth int) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	if depth++; depth > maxInputDepth {
		return fmt.Errorf("nested deeper than %d", maxInputDepth)
	}
	switch d {
	case '[':
		for dec.More() {
			if err := walkValue(dec, depth); err != nil {
				return unexpectedEOF(err)
			}
		}
	case '{':
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return unexpectedEOF(err)
			}
			key, _ := kt.(string)
			if seen[key] {
				return fmt.Errorf("duplicate object key %s", truncateText(fmt.Sprintf("%q", key), 80))
			}
			seen[key] = true
			if err := walkValue(dec, depth); err != nil {
				return unexpectedEOF(err)
			}
		}
	}
	if _, err := dec.Token(); err != nil { // the closing delimiter
		return unexpectedEOF(err)
	}
	return nil
}

func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
