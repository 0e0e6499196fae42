#!/usr/bin/env python3
"""Checks every code block of the guide (docs/guide/*.md); ctest `docs_guide`, tests/docs/tests.cmake.

A block is checked by its language, and a block of any other language fails the test. A comment
`<!-- check: ... -->` on the line before a block says how (KEY=VALUE words and flags):

  ```cpp   A translation unit. `extract` (at configure time) writes it out and tests/docs/tests.cmake
           builds it with the project's warnings as errors, so a block that does not compile fails
           the build. `name=NAME` (required) names the program, `libs=mcp::http,...` what it links
           (default mcp::mcp), `wrapper=W` puts a fragment into tests/docs/wrappers/W.cpp in
           place of its `// @BLOCK@` line.
  ```sh    Without `run`: every command is verified. Its program must exist (a program of this
           project, a block's program, a script of the tree, or one on PATH) and each option it
           shows must be one that program knows: for mcp-cpp, demo_server, cmake, ctest, the
           MCP Inspector and system programs, the option appears in the program's --help (of
           the subcommand shown); for a script of the tree or a block's program, in its
           text; `--preset P` names a
           preset of CMakePresets.json; `-DVAR` a variable the build reads. What follows `--` of
           `mcp-cpp ... -- CMD` is verified as a command too.
           With `run`: the block is run by bash (errexit, pipefail) in a scratch directory where
           each cpp block's program is `./NAME` and mcp-cpp, demo_server and
           mcp-cpp-demo-server are on PATH; it must exit 0 (or `exit=N`). A ```text block right
           after it is its expected standard output (a line `...` matches any lines).
  ```json  Must parse. Every object with a "command" is verified as a command line (with its
           "args"); every "url" must be an http(s) URL. With `inspector=SERVER`, the MCP Inspector
           CLI (pinned in tests/interop/package.json; setup.sh --npm installs it) is run with the
           block as its --config and --server SERVER and must list the server's tools; without
           the Inspector installed the test ends SKIPPED (77) after every other check passed.
  ```cmake With `project`: a CMakeLists.txt. The build tree is installed into a scratch prefix,
           the block is configured against it (find_package) beside the page's cpp blocks and
           built, and the program it builds must list its tools to `mcp-cpp tools list`. Only in
           a build without sanitizers (--install-build given); other builds say it was not run.
  ```text  Only as the expected output of a `run` block, as above.

  guide_check.py extract --out DIR PAGE...
  guide_check.py check --source-dir SRC --blocks DIR --work DIR --tool NAME=PATH... \
                       [--install-build BUILD] PAGE...
"""

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

FENCE = re.compile(r"^```([A-Za-z0-9_+-]*)\s*$")
MARKER = re.compile(r"^<!--\s*check:(.*?)-->\s*$")
NAME = re.compile(r"^[a-z][a-z0-9_]*$")
LANGS = {"cpp", "sh", "json", "cmake", "text"}


class Block:
    def __init__(self, page, line, lang, text, marker):
        self.page, self.line, self.lang, self.text = page, line, lang, text
        self.opts = {}
        self.flags = set()
        for word in shlex.split(marker or ""):
            if "=" in word:
                key, value = word.split("=", 1)
                self.opts[key] = value
            else:
                self.flags.add(word)

    def where(self):
        return f"{os.path.basename(self.page)}:{self.line}"


def parse(page):
    """The fenced blocks of a page, with the marker before each; errors for fences left open."""
    lines = open(page, encoding="utf-8").read().split("\n")
    blocks, errors = [], []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            if lines[i].startswith("```"):
                errors.append(f"{os.path.basename(page)}:{i + 1}: a fence this test cannot read")
            i += 1
            continue
        start = i
        j = i - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        mk = MARKER.match(lines[j]) if j >= 0 else None
        body = []
        i += 1
        while i < len(lines) and lines[i].rstrip() != "```":
            body.append(lines[i])
            i += 1
        if i == len(lines):
            errors.append(f"{os.path.basename(page)}:{start + 1}: block never closed")
            break
        blocks.append(Block(page, start + 1, m.group(1), "\n".join(body) + "\n",
                            mk.group(1) if mk else None))
        i += 1
    return blocks, errors


def cpp_source(block, source_dir):
    wrapper = block.opts.get("wrapper")
    if not wrapper:
        return block.text
    path = os.path.join(source_dir, "tests", "docs", "wrappers", wrapper + ".cpp")
    text = open(path, encoding="utf-8").read()
    if "// @BLOCK@\n" not in text:
        raise ValueError(f"{path} has no // @BLOCK@ line")
    return text.replace("// @BLOCK@\n", block.text)


def extract(args):
    os.makedirs(args.out, exist_ok=True)
    seen = set()
    out = ["# Written by tests/docs/guide_check.py extract from docs/guide/*.md; do not edit."]
    source_dir = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for page in args.pages:
        blocks, _ = parse(page)
        for b in blocks:
            name = b.opts.get("name", "")
            if b.lang != "cpp" or not NAME.match(name) or name in seen:
                continue  # `check` reports it
            seen.add(name)
            try:
                text = cpp_source(b, source_dir)
            except (OSError, ValueError):
                continue
            path = os.path.join(args.out, name + ".cpp")
            # Rewritten only when it changed, so that a configure run rebuilds nothing else.
            old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
            if old != text:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
            libs = b.opts.get("libs", "mcp::mcp").split(",")
            out.append(f"mcp_guide_block({name} {path} {' '.join(libs)})")
    with open(os.path.join(args.out, "blocks.cmake"), "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    return 0


class Checker:
    def __init__(self, args):
        self.args = args
        self.src = os.path.abspath(args.source_dir)
        self.tools = dict(t.split("=", 1) for t in args.tool)
        self.failures = []
        self.skipped = []
        self.help_cache = {}
        self.names = set()
        self.sources = {}  # a cpp block's program name: its text (its options are in it)
        self.work = os.path.abspath(args.work)
        shutil.rmtree(self.work, ignore_errors=True)
        self.path_dir = os.path.join(self.work, "path")
        os.makedirs(self.path_dir)
        for name, path in self.tools.items():
            os.symlink(path, os.path.join(self.path_dir, name))
        # The Debian package installs the demo server under this name.
        os.symlink(self.tools["demo_server"], os.path.join(self.path_dir, "mcp-cpp-demo-server"))
        self.bin = os.path.join(os.path.abspath(args.blocks), "bin")
        self.env = dict(os.environ)
        self.env["PATH"] = self.path_dir + os.pathsep + self.bin + os.pathsep + os.environ["PATH"]
        self.env["HOME"] = os.path.join(self.work, "home")
        self.env["XDG_STATE_HOME"] = os.path.join(self.work, "state")
        self.env["MCP_INSPECTOR_SECRET_STORE"] = "memory"
        os.makedirs(self.env["HOME"])
        self.inspector = self.find_inspector()

    def fail(self, block, message):
        self.failures.append(f"{block.where()}: {message}")

    # --- programs and their options ---------------------------------------------------------

    def run_help(self, argv):
        key = tuple(argv)
        if key not in self.help_cache:
            try:
                p = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=self.env,
                                   cwd=self.work)
                self.help_cache[key] = (p.returncode, p.stdout + p.stderr)
            except (OSError, subprocess.TimeoutExpired) as e:
                self.help_cache[key] = (-1, str(e))
        return self.help_cache[key]

    def find_inspector(self):
        cache = os.path.join(os.path.expanduser("~"), ".cache", "mcp-cpp-npm")
        if not os.path.isdir(cache):
            return None
        for d in sorted(os.listdir(cache)):
            exe = os.path.join(cache, d, "node_modules", ".bin", "mcp-inspector")
            if d.startswith("interop-") and os.path.exists(exe):
                return exe
        return None

    @staticmethod
    def option_of(token):
        if not token.startswith("-") or token in ("-", "--"):
            return None
        if re.match(r"^-\d", token):  # a negative number
            return None
        if not token.startswith("--"):
            return token[:2]  # -j4, -sS: the first letter is the option
        return token.split("=", 1)[0]

    @staticmethod
    def mentions(text, option):
        return re.search(r"(?<![\w-])" + re.escape(option) + r"(?![\w-])", text) is not None

    def check_options(self, block, program, tokens, help_text):
        for t in tokens:
            opt = self.option_of(t)
            if opt and not self.mentions(help_text, opt):
                self.fail(block, f"`{program}` has no option {opt}")

    def presets(self, kind):
        data = json.load(open(os.path.join(self.src, "CMakePresets.json"), encoding="utf-8"))
        return {p["name"] for p in data.get(kind, [])}

    def cmake_variable_known(self, var):
        if var.startswith("CMAKE_"):
            return True
        for root, _, files in os.walk(self.src):
            if "/build" in root or "/.git" in root:
                continue
            for f in files:
                if f == "CMakeLists.txt" or f.endswith(".cmake"):
                    if var in open(os.path.join(root, f), encoding="utf-8").read():
                        return True
        return False

    def verify_cmake(self, block, program, args):
        kind = "configurePresets"
        if program == "ctest":
            kind = "testPresets"
        elif "--build" in args:
            kind = "buildPresets"
        help_text = self.run_help([program, "--help"])[1]
        if program == "cmake":
            help_text += self.run_help([program, "--build"])[1] + self.run_help([program, "--install"])[1]
        it = iter(range(len(args)))
        for i in it:
            t = args[i]
            if t.startswith("--preset"):
                name = t.split("=", 1)[1] if "=" in t else (args[i + 1] if i + 1 < len(args) else "")
                if name not in self.presets(kind):
                    self.fail(block, f"`{program}`: no {kind[:-1]} named {name!r} in CMakePresets.json")
            elif t.startswith("-D"):
                var = (t[2:] or (args[i + 1] if i + 1 < len(args) else "")).split("=", 1)[0]
                var = var.split(":", 1)[0]
                if not self.cmake_variable_known(var):
                    self.fail(block, f"`{program}`: the build reads no variable {var}")
            else:
                self.check_options(block, program, [t], help_text)

    def verify_mcp_cpp(self, block, exe, args):
        if "--" in args:
            cut = args.index("--")
            args, child = args[:cut], args[cut + 1:]
            if not child:
                self.fail(block, "`mcp-cpp ... --` without a command")
            else:
                self.verify_command(block, child)
        words = []
        for t in args:
            if t.startswith("-") or len(words) == 2:
                break
            words.append(t)
        for n in range(len(words), -1, -1):
            rc, text = self.run_help([exe, *words[:n], "--help"])
            if rc == 0 and all(w in text.split("Usage:", 1)[-1].split("\n", 1)[0] for w in words[:n]):
                break
        else:
            self.fail(block, f"`mcp-cpp {' '.join(words)}`: no such subcommand")
            return
        if n == 0 and words:
            self.fail(block, f"`mcp-cpp {words[0]}`: no such subcommand")
        self.check_options(block, "mcp-cpp " + " ".join(words[:n]), args[n:], text)

    def verify_npx(self, block, args):
        pinned = json.load(open(os.path.join(self.src, "tests", "interop", "package.json"),
                                encoding="utf-8"))
        deps = pinned.get("dependencies", {}) | pinned.get("devDependencies", {})
        package = next((a for a in args if not a.startswith("-")), "")
        if package not in deps:
            self.fail(block, f"`npx {package}`: not pinned in tests/interop/package.json")
            return
        if package != "@modelcontextprotocol/inspector":
            return
        if not self.inspector:
            self.skipped.append(f"{block.where()}: the MCP Inspector is not installed "
                                "(scripts/setup.sh --npm); its options were not checked")
            return
        rest = args[args.index(package) + 1:]
        mode = next((m for m in ("--cli", "--tui", "--web") if m in rest), "--web")
        text = self.run_help([self.inspector, mode, "--help"])[1]
        self.check_options(block, "mcp-inspector " + mode, [t for t in rest if t != mode], text)

    def verify_command(self, block, tokens):
        while tokens and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", tokens[0]):
            tokens = tokens[1:]  # environment assignments
        if tokens and tokens[0] == "sudo":
            tokens = tokens[1:]
        if not tokens:
            return
        program, args = tokens[0], tokens[1:]
        base = os.path.basename(program)
        if base == "mcp-cpp":
            self.verify_mcp_cpp(block, self.tools["mcp-cpp"], args)
        elif base in ("demo_server", "mcp-cpp-demo-server"):
            self.check_options(block, base, args, self.run_help([self.tools["demo_server"], "--help"])[1])
        elif base in self.names:
            self.check_options(block, program, args, self.sources[base])
        elif base in ("cmake", "ctest"):
            self.verify_cmake(block, base, args)
        elif base == "npx":
            self.verify_npx(block, args)
        elif "/" in program and not program.startswith("/"):
            path = os.path.join(self.src, program)
            if not os.path.isfile(path):
                self.fail(block, f"`{program}`: no such file in the source tree")
            else:
                self.check_options(block, program, args, open(path, encoding="utf-8").read())
        elif shutil.which(program, path=self.env["PATH"]):
            text = self.run_help([program, "--help"])[1]
            if base == "curl":
                text += self.run_help([program, "--help", "all"])[1]
            self.check_options(block, program, args, text)
        else:
            self.fail(block, f"`{program}`: no such program here")

    def commands(self, script):
        """Simple commands of a shell script: continuation lines joined, comments dropped, split at
        ; && || | &."""
        script = script.replace("\\\n", " ")
        out = []
        for line in script.split("\n"):
            lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
            lexer.whitespace_split = True
            lexer.commenters = "#"
            current = []
            for tok in lexer:
                if tok and set(tok) <= set(";&|"):
                    out.append(current)
                    current = []
                else:
                    current.append(tok)
            out.append(current)
        return [c for c in out if c]

    # --- the block kinds ---------------------------------------------------------------------

    def check_sh(self, block, page_dir):
        if "run" not in block.flags:
            for cmd in self.commands(block.text):
                self.verify_command(block, cmd)
            return None
        # Output to files, not pipes, and a process group of its own: a server the block left
        # running (a failed command before its `kill`) is ended here and holds up nothing.
        with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
            p = subprocess.Popen(["bash", "-c", "set -euo pipefail\n" + block.text], cwd=page_dir,
                                 env=self.env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                 start_new_session=True)
            try:
                rc = p.wait(timeout=120)
            except subprocess.TimeoutExpired:
                rc = None
            try:
                os.killpg(p.pid, 9)
            except ProcessLookupError:
                pass
            p.wait()
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read(), err.read()
        if rc is None:
            self.fail(block, f"ran for more than 120 s\n--- stdout\n{stdout}--- stderr\n{stderr}")
            return None
        want = int(block.opts.get("exit", "0"))
        if rc != want:
            self.fail(block, f"exit status {rc}, not {want}\n--- stdout\n{stdout}"
                             f"--- stderr\n{stderr}")
        return stdout

    @staticmethod
    def matches(expected, actual):
        want = [l.rstrip() for l in expected.rstrip("\n").split("\n")]
        got = [l.rstrip() for l in actual.rstrip("\n").split("\n")]

        def go(i, j):
            if i == len(want):
                return j == len(got)
            if want[i] == "...":
                return any(go(i + 1, k) for k in range(j, len(got) + 1))
            return j < len(got) and want[i] == got[j] and go(i + 1, j + 1)

        return go(0, 0)

    def walk_json(self, block, value):
        if isinstance(value, dict):
            if isinstance(value.get("command"), str):
                args = value.get("args", [])
                if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
                    self.fail(block, '"args" must be a list of strings')
                else:
                    self.verify_command(block, [value["command"], *args])
            if "url" in value:
                u = urllib.parse.urlparse(str(value["url"]))
                if u.scheme not in ("http", "https") or not u.netloc or not u.path:
                    self.fail(block, f'"url": {value["url"]!r} is not an http(s) URL with a path')
            for v in value.values():
                self.walk_json(block, v)
        elif isinstance(value, list):
            for v in value:
                self.walk_json(block, v)

    def check_json(self, block, page_dir):
        try:
            value = json.loads(block.text)
        except json.JSONDecodeError as e:
            self.fail(block, f"not JSON: {e}")
            return
        self.walk_json(block, value)
        if "file" in block.opts:  # later `run` blocks of the page use it
            with open(os.path.join(page_dir, block.opts["file"]), "w", encoding="utf-8") as f:
                f.write(block.text)
        server = block.opts.get("inspector")
        if not server:
            return
        if not self.inspector:
            self.skipped.append(f"{block.where()}: the MCP Inspector is not installed "
                                "(scripts/setup.sh --npm); this configuration was not tried")
            return
        entry = value.get("mcpServers", {}).get(server)
        if not isinstance(entry, dict) or "command" not in entry:
            self.fail(block, f"no stdio server {server!r} under mcpServers")
            return
        # The configuration names installed paths; here they are the programs just built.
        base = os.path.basename(entry["command"])
        local = shutil.which(base, path=self.env["PATH"])
        if not local:
            self.fail(block, f"{entry['command']}: no program {base} was built")
            return
        entry["command"] = local
        config = os.path.join(page_dir, f"inspector-{block.line}.json")
        with open(config, "w", encoding="utf-8") as f:
            json.dump(value, f)
        p = subprocess.run([self.inspector, "--cli", "--config", config, "--server", server,
                            "--method", "tools/list"], cwd=page_dir, env=self.env,
                           capture_output=True, text=True, timeout=120)
        try:
            tools = json.loads(p.stdout)["tools"]
            assert p.returncode == 0 and tools
        except (ValueError, KeyError, AssertionError):
            self.fail(block, f"the Inspector did not list the tools of {server!r} "
                             f"(exit {p.returncode})\n{p.stdout}{p.stderr}")

    def check_cmake(self, block, page_blocks, page_dir):
        if "project" not in block.flags:
            self.fail(block, "a cmake block is checked only as a `project`")
            return
        if not self.args.install_build:
            print(f"{block.where()}: cmake project not built in this build (sanitizers); "
                  "the ci preset builds it")
            return
        prefix = os.path.join(self.work, "prefix")
        if not os.path.isdir(prefix):
            p = subprocess.run(["cmake", "--install", self.args.install_build, "--prefix", prefix],
                               capture_output=True, text=True)
            if p.returncode != 0:
                self.fail(block, "cmake --install of the build tree failed\n" + p.stderr)
                return
        proj = os.path.join(page_dir, f"project-{block.line}")
        os.makedirs(proj)
        with open(os.path.join(proj, "CMakeLists.txt"), "w", encoding="utf-8") as f:
            f.write(block.text)
        for b in page_blocks:
            if b.lang == "cpp" and "name" in b.opts:
                with open(os.path.join(proj, b.opts["name"] + ".cpp"), "w", encoding="utf-8") as f:
                    f.write(b.text)
        launcher = []
        if shutil.which("ccache"):
            launcher = ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
        for argv in (["cmake", "-S", proj, "-B", proj + "/build", "-DCMAKE_PREFIX_PATH=" + prefix,
                      *launcher],
                     ["cmake", "--build", proj + "/build"]):
            p = subprocess.run(argv, capture_output=True, text=True, env=self.env)
            if p.returncode != 0:
                self.fail(block, f"{' '.join(argv[:2])} failed\n{p.stdout}{p.stderr}")
                return
        m = re.search(r"add_executable\((\w+)", block.text)
        if not m:
            self.fail(block, "the project builds no program")
            return
        p = subprocess.run([self.tools["mcp-cpp"], "tools", "list", "--", os.path.join(proj, "build", m.group(1))],
                           capture_output=True, text=True, env=self.env, timeout=60)
        if p.returncode != 0 or "NAME" not in p.stdout:
            self.fail(block, f"mcp-cpp tools list of the built program failed\n{p.stdout}{p.stderr}")

    def run(self):
        pages = []
        for page in self.args.pages:
            blocks, errors = parse(page)
            self.failures += errors
            pages.append((page, blocks))
            for b in blocks:
                if b.lang == "cpp":
                    name = b.opts.get("name", "")
                    if not NAME.match(name):
                        self.fail(b, "a cpp block needs `<!-- check: name=NAME -->` (lower case)")
                    elif name in self.names:
                        self.fail(b, f"a second cpp block named {name}")
                    self.names.add(name)
                    self.sources[name] = b.text
        count = 0
        for page, blocks in pages:
            page_dir = os.path.join(self.work, os.path.splitext(os.path.basename(page))[0])
            os.makedirs(page_dir)
            for name in self.names:
                exe = os.path.join(self.bin, name)
                if os.path.exists(exe):
                    os.symlink(exe, os.path.join(page_dir, name))
            last_output = None
            for b in blocks:
                count += 1
                if b.lang not in LANGS:
                    self.fail(b, f"```{b.lang}: no check for blocks of this language")
                elif b.lang == "cpp":
                    if not os.path.exists(os.path.join(self.bin, b.opts.get("name", "?"))):
                        self.fail(b, "its program was not built")
                elif b.lang == "sh":
                    last_output = self.check_sh(b, page_dir)
                    continue
                elif b.lang == "text":
                    if last_output is None:
                        self.fail(b, "a text block is allowed only as the output of a `run` block")
                    elif not self.matches(b.text, last_output):
                        self.fail(b, f"the output differs; it was:\n{last_output}")
                elif b.lang == "json":
                    self.check_json(b, page_dir)
                elif b.lang == "cmake":
                    self.check_cmake(b, blocks, page_dir)
                last_output = None
        for f in self.failures:
            print("FAIL " + f)
        for s in self.skipped:
            print("NOT CHECKED " + s)
        if self.failures:
            print(f"guide: {len(self.failures)} failures in {count} blocks")
            return 1
        if self.skipped:
            print(f"guide: {count} blocks; SKIPPED: {len(self.skipped)} could not be checked here")
            return 77
        print(f"guide: all {count} blocks checked")
        return 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("extract")
    e.add_argument("--out", required=True)
    e.add_argument("pages", nargs="*")
    c = sub.add_parser("check")
    c.add_argument("--source-dir", required=True)
    c.add_argument("--blocks", required=True)
    c.add_argument("--work", required=True)
    c.add_argument("--tool", action="append", default=[])
    c.add_argument("--install-build")
    c.add_argument("pages", nargs="+")
    args = ap.parse_args()
    if args.cmd == "extract":
        return extract(args)
    return Checker(args).run()


if __name__ == "__main__":
    sys.exit(main())
