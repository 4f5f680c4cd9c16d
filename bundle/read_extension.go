package bundle

import (
	"strconv"
)

// extBase is the finding path of bundlectl's manifest namespace.
var extBase = FieldPath(ManifestJSON+": extensions", Namespace)

// extReader reads extensions["dev.bundlectl"] strictly: an unknown key at
// any depth (extension.unknown-field) and a value of the wrong JSON type
// (extension.type) are Errors, because this is bundlectl's own namespace
// and a misspelled key must never silently drop a restriction. Rules on the
// values (names, commands, ranges) belong to the component and are applied
// per component: here only where the JSON form carries information that the
// model loses (an explicit zero timeout, a hook type), else in checkModel.
type extReader struct{ b *Bundle }

func (r extReader) typeErr(path, want string, v *jsonValue) {
	r.b.Report.Errorf(path, "extension.type", "must be %s, not %s", want, v.kind)
}

// object checks that v is an object whose keys are all allowed.
func (r extReader) object(v *jsonValue, path string, allowed ...string) bool {
	if v.kind != jsonObject {
		r.typeErr(path, "an object", v)
		return false
	}
	ok := true
	for _, k := range v.keys {
		known := false
		for _, a := range allowed {
			if k == a {
				known = true
				break
			}
		}
		if !known {
			r.b.Report.Errorf(FieldPath(path, k), "extension.unknown-field", "unknown key %s in the %s extension", Quote(k), Namespace)
			ok = false
		}
	}
	return ok
}

func (r extReader) str(v *jsonValue, path string) (string, bool) {
	if v.kind != jsonString {
		r.typeErr(path, "a string", v)
		return "", false
	}
	return v.str, true
}

func (r extReader) strs(v *jsonValue, path string) ([]string, bool) {
	if v.kind != jsonArray {
		r.typeErr(path, "an array of strings", v)
		return nil, false
	}
	out := make([]string, 0, len(v.arr))
	ok := true
	for i, e := range v.arr {
		if e.kind != jsonString {
			r.typeErr(indexPath(path, i), "a string", e)
			ok = false
			continue
		}
		out = append(out, e.str)
	}
	return out, ok
}

func (r extReader) strMap(v *jsonValue, path string) (map[string]string, bool) {
	if v.kind != jsonObject {
		r.typeErr(path, "an object of strings", v)
		return nil, false
	}
	m := make(map[string]string, len(v.keys))
	ok := true
	for _, k := range v.keys {
		e := v.obj[k]
		if e.kind != jsonString {
			r.typeErr(FieldPath(path, k), "a string", e)
			ok = false
			continue
		}
		m[k] = e.str
	}
	return m, ok
}

// integer accepts only an integer literal (no fraction, no exponent).
func (r extReader) integer(v *jsonValue, path string) (int, bool) {
	if v.kind != jsonNumber {
		r.typeErr(path, "an integer", v)
		return 0, false
	}
	n, err := strconv.Atoi(v.str)
	if err != nil {
		r.b.Report.Errorf(path, "extension.type", "must be an integer")
		return 0, false
	}
	return n, true
}

func (r extReader) boolean(v *jsonValue, path string) (bool, bool) {
	if v.kind != jsonBool {
		r.typeErr(path, "a boolean", v)
		return false, false
	}
	return v.b, true
}

// timeout reads an optional timeout in seconds. Present, it must be within
// 1..MaxTimeoutSec; the model cannot tell an explicit 0 from an absent
// field, so that range is checked here too (and again in checkModel).
func (r extReader) timeout(v *jsonValue, path, rule string) (int, bool) {
	n, ok := r.integer(v, path)
	if !ok {
		return 0, false
	}
	if n < 1 || n > MaxTimeoutSec {
		r.b.Report.Skipf(path, rule, "timeout must be between 1 and %d seconds", MaxTimeoutSec)
		return 0, false
	}
	return n, true
}

// MaxTimeoutSec is the largest timeout a manifest may set (docs/harness.md).
const MaxTimeoutSec = 600

// parseExtension reads extensions["dev.bundlectl"] into the model.
func parseExtension(b *Bundle, v *jsonValue, mcp mcpStatus) {
	r := extReader{b}
	r.object(v, extBase, "tools", "hooks", "mcp", "capabilities", "when", "display_name", "lsp", "native")
	for _, k := range v.keys {
		f := v.obj[k]
		p := FieldPath(extBase, k)
		switch k {
		case "tools":
			r.tools(f, p)
		case "hooks":
			r.hooks(f, p)
		case "mcp":
			r.mcpOptions(f, p, mcp)
		case "capabilities":
			r.capabilities(f, p)
		case "when":
			r.when(f, p)
		case "display_name":
			if s, ok := r.str(f, p); ok {
				b.Meta.DisplayName = s
			}
		case "lsp":
			r.lsp(f, p)
		case "native":
			r.native(f, p)
		}
	}
}

func (r extReader) tools(v *jsonValue, path string) {
	if v.kind != jsonArray {
		r.typeErr(path, "an array", v)
		return
	}
	for i, e := range v.arr {
		p := indexPath(path, i)
		t := Tool{Source: p}
		if !r.object(e, p, "name", "description", "command", "args", "params", "timeout_sec") {
			continue
		}
		keep := true
		for _, k := range e.keys {
			f, fp := e.obj[k], FieldPath(p, k)
			var ok bool
			switch k {
			case "name":
				t.Name, ok = r.str(f, fp)
			case "description":
				t.Description, ok = r.str(f, fp)
			case "command":
				t.Command, ok = r.str(f, fp)
			case "args":
				t.Args, ok = r.strs(f, fp)
			case "params":
				t.Params, ok = canonicalJSON(f.any()), true
			case "timeout_sec":
				t.TimeoutSec, ok = r.timeout(f, fp, "tool.timeout")
			}
			keep = keep && ok
		}
		if keep {
			r.b.Components.Tools = append(r.b.Components.Tools, t)
		}
	}
}

// hooks flattens the Claude-Code-shaped tree into b.Components.Hooks in
// manifest order: events in the order written, then matcher groups, then
// hooks.
func (r extReader) hooks(v *jsonValue, path string) {
	if v.kind != jsonObject {
		r.typeErr(path, "an object keyed by hook event", v)
		return
	}
	walkHookTree(r.b, r, v, path, "",
		func(g *jsonValue, gp string) bool { return r.object(g, gp, "matcher", "hooks") },
		func(h *jsonValue, hp, event, matcher string) {
			if hook, ok := r.hook(h, hp, event, matcher); ok {
				r.b.Components.Hooks = append(r.b.Components.Hooks, hook)
			}
		})
}

func (r extReader) hook(v *jsonValue, path, event, matcher string) (Hook, bool) {
	h := Hook{Event: event, Matcher: matcher, Source: path, Type: HookCommand}
	if !r.object(v, path, "type", "command", "args", "timeout") {
		return h, false
	}
	keep := true
	typ := ""
	for _, k := range v.keys {
		f, fp := v.obj[k], FieldPath(path, k)
		var ok bool
		switch k {
		case "type":
			typ, ok = r.str(f, fp)
		case "command":
			h.Command, ok = r.str(f, fp)
		case "args":
			h.Args, ok = r.strs(f, fp)
		case "timeout":
			h.TimeoutSec, ok = r.timeout(f, fp, "hook.timeout")
		}
		keep = keep && ok
	}
	if keep && typ != "command" {
		// The dev.bundlectl extension declares command hooks only; host
		// manifests declare the others.
		if typ == "" {
			r.b.Report.Skipf(path, "hook.type", "hook has no type; only \"command\" hooks are supported here")
		} else {
			r.b.Report.Skipf(path+".type", "hook.type", "hook type %s is not supported here (only \"command\")", Quote(typ))
		}
		keep = false
	}
	return h, keep
}

// mcpOptions attaches dev.bundlectl.mcp.<server> options to the servers
// read from mcp.json. An option for a name mcp.json does not declare is an
// Error: it is most likely a typo that would silently drop a restriction.
func (r extReader) mcpOptions(v *jsonValue, path string, mcp mcpStatus) {
	if v.kind != jsonObject {
		r.typeErr(path, "an object keyed by mcp server name", v)
		return
	}
	for _, name := range v.keys {
		o, op := v.obj[name], FieldPath(path, name)
		if !r.object(o, op, "timeout_sec", "tools", "env_from", "bearer_token_env_var", "env_headers") {
			continue
		}
		if mcp.known && !mcp.declared[name] {
			r.b.Report.Errorf(op, "mcp.option-unknown-server", "options for mcp server %s, which mcp.json does not declare", Quote(name))
			continue
		}
		idx := -1
		for i := range r.b.Components.MCP {
			if r.b.Components.MCP[i].Name == name {
				idx = i
				break
			}
		}
		var s MCPServer
		if idx >= 0 {
			s = r.b.Components.MCP[idx]
		}
		keep := true
		for _, k := range o.keys {
			f, fp := o.obj[k], FieldPath(op, k)
			var ok bool
			switch k {
			case "timeout_sec":
				s.TimeoutSec, ok = r.timeout(f, fp, "mcp.timeout")
			case "tools":
				ok = r.object(f, fp, "include", "exclude")
				okInc, okExc := true, true
				if inc, present := f.obj["include"]; ok && present {
					s.ToolsInclude, okInc = r.strs(inc, fp+".include")
				}
				if exc, present := f.obj["exclude"]; ok && present {
					s.ToolsExclude, okExc = r.strs(exc, fp+".exclude")
				}
				ok = ok && okInc && okExc
			case "env_from":
				s.EnvFrom, ok = r.strMap(f, fp)
			case "bearer_token_env_var":
				s.BearerTokenEnvVar, ok = r.str(f, fp)
			case "env_headers":
				s.EnvHeaders, ok = r.strMap(f, fp)
			}
			keep = keep && ok
		}
		if idx < 0 {
			continue // the server itself was skipped or MCP is disabled
		}
		if keep {
			r.b.Components.MCP[idx] = s
		} else {
			// A server must never run without the options written for it.
			r.b.Components.MCP = append(r.b.Components.MCP[:idx], r.b.Components.MCP[idx+1:]...)
		}
	}
}

func (r extReader) capabilities(v *jsonValue, path string) {
	if !r.object(v, path, "network_hosts", "filesystem_roots", "lifecycle_mutation") {
		return
	}
	p := &r.b.Permissions
	for _, k := range v.keys {
		f, fp := v.obj[k], FieldPath(path, k)
		switch k {
		case "network_hosts":
			p.NetworkHosts, _ = r.strs(f, fp)
			p.NetworkDeclared = true
		case "filesystem_roots":
			p.FilesystemRoots, _ = r.strs(f, fp)
		case "lifecycle_mutation":
			p.LifecycleMutation, _ = r.boolean(f, fp)
		}
	}
}

func (r extReader) when(v *jsonValue, path string) {
	if !r.object(v, path, "os", "binaries") {
		return
	}
	for _, k := range v.keys {
		f, fp := v.obj[k], FieldPath(path, k)
		switch k {
		case "os":
			r.b.When.OS, _ = r.strs(f, fp)
		case "binaries":
			r.b.When.Binaries, _ = r.strs(f, fp)
		}
	}
}

// lsp reads {"<name>": {"command": "...", "args": [...], "languages": [...]}}:
// language servers bundlectl starts like stdio MCP servers.
func (r extReader) lsp(v *jsonValue, path string) {
	if v.kind != jsonObject {
		r.typeErr(path, "an object keyed by language server name", v)
		return
	}
	for _, name := range v.keys {
		d, dp := v.obj[name], FieldPath(path, name)
		if !r.object(d, dp, "command", "args", "languages") {
			continue
		}
		l := LSPServer{Name: name, Source: dp}
		if msg := componentNameProblem(name); msg != "" {
			r.b.Report.Skipf(dp, "lsp.name", "language server name %s %s", Quote(name), msg)
			continue
		}
		good := true
		for _, k := range d.keys {
			f, fp := d.obj[k], FieldPath(dp, k)
			var ok bool
			switch k {
			case "command":
				l.Command, ok = r.str(f, fp)
			case "args":
				l.Args, ok = r.strs(f, fp)
			case "languages":
				var langs []string
				langs, ok = r.strs(f, fp)
				l.Languages = languageSet(langs)
			}
			good = good && ok
		}
		if !good {
			continue
		}
		if l.Command == "" {
			r.b.Report.Skipf(dp, "lsp.command", "language server %s has no command", Quote(name))
			continue
		}
		r.b.Components.LSP = append(r.b.Components.LSP, l)
	}
}

// languageSet records a list of language ids as the model's map, keyed
// by id (a dev.bundlectl declaration names no file extensions).
func languageSet(ids []string) map[string]string {
	if len(ids) == 0 {
		return nil
	}
	m := make(map[string]string, len(ids))
	for _, id := range ids {
		m[id] = id
	}
	return m
}

// native reads {"<name>": {"path": "./lib/x.so"}}: a native library the
// bundle would load in process. It is an inactive surface.
func (r extReader) native(v *jsonValue, path string) {
	if v.kind != jsonObject {
		r.typeErr(path, "an object keyed by native module name", v)
		return
	}
	for _, name := range v.keys {
		d, dp := v.obj[name], FieldPath(path, name)
		if !r.object(d, dp, "path") {
			continue
		}
		if msg := componentNameProblem(name); msg != "" {
			r.b.Report.Errorf(dp, "inactive.native", "native module name %s %s", Quote(name), msg)
		}
		pv, ok := d.obj["path"]
		if !ok {
			r.b.Report.Errorf(dp, "inactive.native", "native module %s has no path", Quote(name))
			continue
		}
		p, ok := r.str(pv, dp+".path")
		if !ok {
			continue
		}
		if rel, msg := pluginRelative(p); msg != "" {
			r.b.Report.Errorf(dp+".path", "inactive.native", "path %s", msg)
		} else if e, found := r.b.Tree.Lookup(rel); !found || e.Kind == KindDir {
			r.b.Report.Errorf(dp+".path", "inactive.native", "path %s is not a regular file of the bundle", Quote(p))
		}
		spec := struct {
			Path string `json:"path"`
		}{p}
		r.b.Inactive = append(r.b.Inactive, Inactive{
			Surface: SurfaceNative, Name: name, Detail: p, Spec: canonicalJSON(spec),
		})
		checkText(r.b, dp+".path", p, false)
	}
}
