#!/usr/bin/env python3
"""compat/declared.py — an independent count of what a plugin declares natively.

usage: declared.py <plugin-dir> <review.json>

Reads the plugin's host manifests and component files the way the hosts
document them — written apart from bundlectl's readers, so that it can
catch what they miss — and checks that bundlectl's review (`review --json`)
lists every hook command and every MCP and LSP server: in its inventory, or
among the components it reports as skipped ("will not load"). Prints one
"missing: ..." line per declared item the review does not list, and exits 1
when there is one.

What it reads: .claude-plugin/plugin.json (hooks, mcpServers, lspServers:
inline, a path, or a list of either), hooks/hooks.json, .mcp.json, .lsp.json;
.codex-plugin/plugin.json (hooks, mcpServers); gemini-extension.json
(mcpServers) and hooks/hooks.json; plugin.json with mcp.json (Agent Plugins)
and extensions["dev.bundlectl"] (hooks, tools). Front-matter hooks of skills
and agents are not counted.
"""
import json
import os
import sys


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def rel(root, p):
    if not isinstance(p, str):
        return None
    p = p[2:] if p.startswith("./") else p
    full = os.path.normpath(os.path.join(root, p))
    return full if full.startswith(os.path.normpath(root) + os.sep) else None


def hook_commands(obj):
    """Commands of a hooks object: {"hooks": {Event: [groups]}} or the map."""
    out = []
    if not isinstance(obj, dict):
        return out
    events = obj.get("hooks", obj)
    if not isinstance(events, dict):
        return out
    for groups in events.values():
        if not isinstance(groups, list):
            continue
        for g in groups:
            if not isinstance(g, dict):
                continue
            for h in g.get("hooks", []) if isinstance(g.get("hooks"), list) else []:
                if isinstance(h, dict) and h.get("type", "command") == "command" and isinstance(h.get("command"), str):
                    out.append(h["command"])
                elif isinstance(h, dict) and h.get("type") == "http" and isinstance(h.get("url"), str):
                    out.append(h["url"])
    return out


def servers(obj):
    """Names of a server map: {"mcpServers": {...}} or the map itself."""
    if not isinstance(obj, dict):
        return []
    m = obj.get("mcpServers", obj) if "mcpServers" in obj else obj
    if not isinstance(m, dict):
        return []
    return [k for k, v in m.items() if isinstance(v, dict)]


def field_items(root, value, inline, from_file):
    """A manifest field that is inline, a path, or a list of either."""
    out = []
    items = value if isinstance(value, list) else [value]
    for it in items:
        if isinstance(it, dict):
            out += inline(it)
        elif isinstance(it, str):
            p = rel(root, it)
            if p and os.path.isfile(p):
                out += from_file(load(p))
    return out


def declared(root):
    hooks, mcp, lsp = [], [], []
    claude = load(os.path.join(root, ".claude-plugin", "plugin.json"))
    codex = load(os.path.join(root, ".codex-plugin", "plugin.json"))
    gemini = load(os.path.join(root, "gemini-extension.json"))
    ap = load(os.path.join(root, "plugin.json"))

    hooks_file = load(os.path.join(root, "hooks", "hooks.json"))
    if hooks_file is not None and (claude is not None or gemini is not None or codex is None):
        hooks += hook_commands(hooks_file)
    for man in (claude, codex):
        if isinstance(man, dict) and "hooks" in man:
            hooks += field_items(root, man["hooks"], hook_commands, hook_commands)

    if os.path.isfile(os.path.join(root, ".mcp.json")) and (claude is not None or (codex is None and gemini is None and ap is None)):
        mcp += servers(load(os.path.join(root, ".mcp.json")))
    for man in (claude, codex, gemini):
        if isinstance(man, dict) and "mcpServers" in man:
            v = man["mcpServers"]
            if isinstance(v, dict):
                mcp += list(k for k, s in v.items() if isinstance(s, dict))
            else:
                mcp += field_items(root, v, servers, servers)

    if os.path.isfile(os.path.join(root, ".lsp.json")):
        lsp += servers(load(os.path.join(root, ".lsp.json")))
    if isinstance(claude, dict) and "lspServers" in claude:
        v = claude["lspServers"]
        if isinstance(v, dict):
            lsp += [k for k, s in v.items() if isinstance(s, dict)]
        else:
            lsp += field_items(root, v, servers, servers)

    if isinstance(ap, dict) and str(ap.get("$schema", "")).startswith("https://agent-plugins.org/"):
        mcp += servers(load(os.path.join(root, "mcp.json")))
        ext = (ap.get("extensions") or {}).get("dev.bundlectl") if isinstance(ap.get("extensions"), dict) else None
        if isinstance(ext, dict):
            hooks += hook_commands({"hooks": ext.get("hooks", {})})
    return sorted(set(hooks)), sorted(set(mcp)), sorted(set(lsp))


def main():
    root, review = sys.argv[1], load(sys.argv[2])
    if not isinstance(review, dict):
        print("missing: the review is not JSON")
        return 1
    inv = review.get("components") or {}
    listed = set()
    for h in inv.get("hooks", []) or []:
        for k in ("command", "url"):
            if isinstance(h.get(k), str):
                listed.add(("hook", h[k]))
    for s in inv.get("mcp_servers", []) or []:
        listed.add(("mcp", s.get("name")))
    for s in inv.get("lsp_servers", []) or []:
        listed.add(("lsp", s.get("name")))
    skipped = json.dumps(review.get("skipped") or [])
    hooks, mcp, lsp = declared(root)
    bad = 0
    for kind, items in (("hook", hooks), ("mcp", mcp), ("lsp", lsp)):
        for it in items:
            if (kind, it) in listed:
                continue
            if kind != "hook" and json.dumps(it)[1:-1] in skipped:
                continue  # listed as "will not load", with the reason
            if kind == "hook" and json.dumps(it)[1:-1][:40] in skipped:
                continue
            print("missing: %s %s" % (kind, json.dumps(it)[:120]))
            bad += 1
    print("declared: %d hook(s), %d MCP server(s), %d LSP server(s); %d not in the review" % (len(hooks), len(mcp), len(lsp), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
