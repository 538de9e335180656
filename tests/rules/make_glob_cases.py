"""Regenerate ``tests/rules/data/glob_cases.txt``: what each tool's own glob library says.

Our pure-Python translators (:mod:`providers.rules.matchers`) claim to match as
the tools do; the only honest check is the tools' libraries themselves. This
script runs them under node, once, and writes their verdicts to a data file
the tests read without node. Run it again after changing the lists below:

    NODE_MODULES=/path/to/node_modules python tests/rules/make_glob_cases.py

``NODE_MODULES`` must hold minimatch, picomatch and monaco-editor (for VS
Code's ``esm/vs/base/common/glob.js``). Each flavour calls its library the way
the tool does (see the JS below); file lines are
``flavour<TAB>pattern<TAB>path<TAB>1|0|E`` (E: the library threw).

Claude Code (flavour ``claude``) publishes no matcher: its npm package is a native
binary with its JavaScript inside, and its ``.claude/rules`` ``paths:`` are matched by
a gitignore-style class of its own (built with ``ignorecase`` on; not the ``ignore``
npm package, which reads ``[!a]`` and ``src/**/`` otherwise). The script loads that
class from the installed client (``bash .ci/install-clients.sh``; ``CLAUDE_BIN``
elsewhere), by the shape of its source, and fails when the shape is not found. What
Claude Code does to ``paths:`` before matching (split at commas outside braces,
braces expanded, a trailing ``/**`` dropped, ``**`` alone meaning always) is written
out in the JS below, as observed with the real client
(``tests/clients/test_claude_rules.py`` checks it end to end).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

DEFAULT_NODE_MODULES = "/work/bench-cache/npm-globs/node_modules"
REPO_ROOT = Path(__file__).resolve().parents[2]
PINS = json.loads((REPO_ROOT / "tests" / "clients" / "versions.json").read_text())
DEFAULT_CLAUDE_BIN = (
    REPO_ROOT / ".clients" / "node_modules" / PINS["claude"]["package"] / "bin" / "claude.exe"
)
OUT = Path(__file__).parent / "data" / "glob_cases.txt"

PATTERNS: tuple[str, ...] = (
    # bare names and directory forms
    "src", "src/", "/src", "./src", "/src/**", "./src/**", "src/**", "src/**/", "src/*",
    "src/**/*", "src/**/*.ts", "src/*.ts", "/src/*.ts", "./src/*.ts", "lib/src/*.ts",
    "a.ts", "/a.ts", "./a.ts", "src/a.ts",
    # everything
    "**", "*", "**/*", "**/", "*/", "*/*", "**/**",
    # extensions
    "*.ts", "**/*.ts", "*.TS", "**/*.TS", "*.Ts", "SRC/**", "Src/*.ts", "*.tsx", "*.js",
    "**/*.{ts,tsx}", "*.{ts,js}", "{src,lib}/**", "src/{a,b}.ts", "{a,b}.ts", "*.{ts}",
    "src/**/*.{ts,tsx}", "**/{a,b}/**",
    # single characters and classes
    "?.ts", "src/?.ts", "??.ts", "[a-c].ts", "[!a].ts", "[^a].ts", "src/[a-c].ts",
    "[ab]*", "[[:alpha:]].ts", "*[0-9]*",
    # dotfiles and dot directories
    ".env", "*.env", "**/.env", ".*", "**/.*", ".github/**", ".github/**/*.yml",
    "**/.github/**", "**/*.yml", "*.md", "**/*.md", "docs/**/*.md", ".hidden/**",
    "**/.hidden/**", "src/.hidden/*",
    # deeper and mid-path globstars
    "src/**/b.ts", "**/deep/**", "src/**/deep/*", "**/src/**", "**/test/**/*.spec.ts",
    "node_modules/**", "**/node_modules/**", "a*", "*a*", "src*", "src*/**",
    # negation and escapes
    "!*.ts", "!src/**", "src/\\*.ts", "\\*.ts",
    # bad patterns: recorded with each library's verdict
    "foo\\", "!", "[z-a]", "[", "src/[", "{", "src/{a,b", "*.{ts", "[a-", "**/[z-a].ts",
    "[]", "[!]",
    # trailing slashes and doubled globstars (VS Code drops an empty last segment)
    "src/**/**", "src/**/**/", "**/src/", "src/*/", "src/**/*/", "*.ts/", "src/a.ts/",
    # negated classes ([!.] is a regex class in VS Code: it matches a separator too)
    "[!.]*", "*[!.]", ".[!.]*", "src/[!.]*", "src[!.]a.ts", "[!.]*/**", "**/[!.]*.ts",
    "src[!x]*", "[!a]/*",
)  # fmt: skip

PATHS: tuple[str, ...] = (
    "src", "src/a.ts", "src/b.ts", "src/ab.ts", "src/c.js", "src/a.tsx", "src/deep/b.ts",
    "src/deep/deeper/c.ts", "src/A.TS", "src/B.Ts", "Src/a.ts", "SRC/A.ts", "a.ts", "b.ts",
    "d.ts", "ab.ts", "A.TS", "a.tsx", "c.js", "x", "a", "lib/a.ts", "lib/src/a.ts",
    "lib/x/y.ts", "src/.hidden/x.ts", ".hidden/x.ts", "src/.eslintrc", ".env", "app/.env",
    "x.env", ".github/workflows/ci.yml", ".github/copilot-instructions.md", ".github/x.md",
    "docs/readme.md", "docs/guide/intro.md", "README.md", "test/unit/a.spec.ts",
    "src/test/a.spec.ts", "node_modules/x/index.js", "pkg/node_modules/y.js", "a.b.ts",
    "src1/a.ts", "srcx", "1.ts", "src/a/b/deep/x.ts", "a/b/c", "b/a.ts", "*.ts", "src/*.ts",
    "foo", "z.ts",
)  # fmt: skip

# The JS, plainly: one function per flavour, each calling its library as the tool does.
JS = r"""
import { readFileSync } from "node:fs";
const NM = process.env.NM;
const { minimatch } = await import(NM + "/minimatch/dist/esm/index.js");
const picomatch = (await import(NM + "/picomatch/index.js")).default;
const vscode = await import(NM + "/monaco-editor/esm/vs/base/common/glob.js");
const { claudeMatcher } = await import(process.env.CLAUDE_MATCHER);
const { patterns, paths } = JSON.parse(readFileSync(0, "utf8"));

// Continue, core/llm/rules/getSystemMessageWithRules.ts matchesGlobs: minimatch with
// default options; a leading "!" is stripped by Continue and the result negated.
function continueMatch(pattern, path) {
  if (pattern.startsWith("!")) return !minimatch(path, pattern.substring(1));
  return minimatch(path, pattern);
}
// Cline, rule-conditionals.ts evaluatePathsConditional: trimmed, picomatch(p, {dot: true}).
function clineMatch(pattern, path) {
  return picomatch(pattern.trim(), { dot: true })(path);
}
// VS Code (Copilot applyTo): "**", "**/*", "*" apply to every file; a pattern not starting
// with "/" or "**/" gets "**/" prepended; matched case-insensitively against the file's
// absolute path (here the workspace is /ws).
function vscodeMatch(pattern, path) {
  const p = pattern.trim();
  if (p.length === 0) return false;
  if (p === "**" || p === "**/*" || p === "*") return true;
  const full = (!p.startsWith("/") && !p.startsWith("**/")) ? "**/" + p : p;
  return vscode.match(full, "/ws/" + path, { ignoreCase: true });
}
// Claude Code, .claude/rules: a rule's paths (here the one pattern) are split at commas
// outside braces, each brace group expanded, a trailing "/**" dropped, empty ones dropped;
// none left, or only "**", and the rule always applies. Then its matcher, ignorecase on,
// asked whether it "ignores" the path relative to the folder holding .claude/.
function claudeExpand(pattern) {
  const out = [];
  const stack = [pattern];
  while (stack.length) {
    const one = stack.pop();
    const m = /^([^{]*)\{([^}]+)\}(.*)$/.exec(one);
    if (!m) { out.push(one); continue; }
    const choices = m[2].split(",").map((c) => c.trim()).reverse();
    for (const choice of choices) stack.push(m[1] + choice + m[3]);
  }
  return out;
}
function claudePaths(value) {
  const parts = [];
  let depth = 0, current = "";
  for (const ch of value) {
    if (ch === "{") depth++;
    else if (ch === "}") depth--;
    if (ch === "," && depth === 0) { if (current.trim()) parts.push(current.trim()); current = ""; }
    else current += ch;
  }
  if (current.trim()) parts.push(current.trim());
  return parts.flatMap(claudeExpand).map((p) => p.endsWith("/**") ? p.slice(0, -3) : p)
    .filter((p) => p.length > 0);
}
function claudeMatch(pattern, path) {
  const globs = claudePaths(pattern);
  if (globs.length === 0 || globs.every((p) => p === "**")) return true;
  const usable = globs.filter((p) => {
    try { claudeMatcher().add([p]).test("probe"); return true; } catch (e) { return false; }
  });
  return claudeMatcher().add(usable).ignores(path);
}
const flavours = {
  minimatch: continueMatch, picomatch: clineMatch, vscode: vscodeMatch, claude: claudeMatch,
};
const out = [];
for (const [name, fn] of Object.entries(flavours)) {
  for (const pattern of patterns) {
    for (const path of paths) {
      let verdict;
      try { verdict = fn(pattern, path) ? "1" : "0"; } catch (e) { verdict = "E"; }
      out.push([name, pattern, path, verdict].join("\t"));
    }
  }
}
process.stdout.write(out.join("\n") + "\n");
"""


def versions(node_modules: Path, claude_bin: Path) -> str:
    found = []
    for name in ("minimatch", "picomatch", "monaco-editor"):
        meta = json.loads((node_modules / name / "package.json").read_text())
        found.append(f"{name} {meta['version']}")
    claude = subprocess.run([str(claude_bin), "--version"], capture_output=True, text=True)
    found.append(f"Claude Code {claude.stdout.split()[0] if claude.stdout else '?'}")
    return ", ".join(found)


_TOKENS = re.compile(rb"var \w+=/\(\\\*\+\(\?=\.\)\)\|")
"""The start of Claude Code's matcher source: the regex that cuts a pattern into tokens
(star runs, escapes, ``/**``, words, one character)."""
_CLASS = re.compile(rb"class (\w+)\{[^{}]*constructor\(\{ignorecase:")
_IDENTITY = re.compile(rb"function \w+\(e\)\{return e\}")


def claude_matcher_module(binary: Path, into: Path) -> Path:
    """An ES module exporting ``claudeMatcher()``: Claude Code's own rules matcher, read
    from the JavaScript inside its binary (a run of declarations that needs nothing else,
    from its token regex to the identity function after the class)."""
    data = binary.read_bytes()
    start = _TOKENS.search(data)
    found = _CLASS.search(data, start.start()) if start else None
    end = _IDENTITY.search(data, found.end()) if found else None
    if start is None or found is None or end is None or end.end() - start.start() > 20_000:
        raise SystemExit(f"Claude Code's rules matcher not found in {binary}: new version?")
    source = data[start.start() : end.end()]
    factory = re.search(rb"function (\w+)\(e\)\{return new " + found.group(1) + rb"\(e\)\}", source)
    if factory is None:
        raise SystemExit(f"Claude Code's rules matcher factory not found in {binary}")
    into.write_bytes(source + b"\nexport { " + factory.group(1) + b" as claudeMatcher };\n")
    return into


def main() -> int:
    node_modules = Path(os.environ.get("NODE_MODULES", DEFAULT_NODE_MODULES))
    claude_bin = Path(os.environ.get("CLAUDE_BIN", DEFAULT_CLAUDE_BIN))
    script = OUT.parent / ".make_glob_cases.mjs"
    OUT.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(JS)
    claude = claude_matcher_module(claude_bin, OUT.parent / ".claude_matcher.mjs")
    try:
        result = subprocess.run(
            ["node", str(script)],
            input=json.dumps({"patterns": PATTERNS, "paths": PATHS}),
            capture_output=True,
            text=True,
            env={**os.environ, "NM": str(node_modules), "CLAUDE_MATCHER": str(claude)},
            check=False,
        )
    finally:
        script.unlink()
        claude.unlink()
    if result.returncode:
        sys.stderr.write(result.stderr)
        return result.returncode
    header = (
        "# Generated by tests/rules/make_glob_cases.py; do not edit by hand.\n"
        f"# {versions(node_modules, claude_bin)}\n"
        "# flavour<TAB>pattern<TAB>path<TAB>1 (matches) | 0 (no match) | E (library threw)\n"
    )
    OUT.write_text(header + result.stdout)
    print(f"wrote {OUT} ({result.stdout.count(chr(10))} cases)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
