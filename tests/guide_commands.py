"""The commands a guide gives, as a machine reads them (tests/test_commands.py).

Every entry of a guide's env_checks.command, steps.commands and verification.commands is a
shell command, parsed with bashlex; an entry that is not shell is a piece of Python to put in
the reader's script, and must compile. Inside the shell commands, the Python they run is found:
`python -c CODE` (any python, python3 or path to one, options before -c allowed) and a
here-document that is fed to python or written to a .py file. Each such snippet compiles;
CI runs those it can (tests/test_commands.py) and the rest are listed in
repro/commands/skip.yaml with what they need.

`python tests/guide_commands.py` prints, as YAML, a first guess for the snippets that have no entry
there yet and seem to need something CI lacks, and names the entries whose snippet is gone.
"""
from __future__ import annotations

import ast
import hashlib
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import bashlex
import yaml

ROOT = Path(__file__).resolve().parents[1]
SKIP_FILE = ROOT / "repro" / "commands" / "skip.yaml"
GPU_LOG = ROOT / "repro" / "commands" / "python-c.log"
# What a snippet may need that CI does not give; `package:<module>` for a Python package.
NEEDS = ("gpu", "reader-input", "network", "platform")
_PYTHON = re.compile(r"(?:.*/)?python(?:3(?:\.\d+)?)?")


@dataclass(frozen=True)
class Snippet:
    guide: str
    where: str          # the checklist item, e.g. "verification.kernel-runs"
    code: str
    args: tuple[str, ...]  # what follows the code on the command line (sys.argv[1:])
    stdin: bool         # the command pipes something into it

    @property
    def key(self) -> str:
        return hashlib.sha256(self.code.encode("utf-8")).hexdigest()[:12]


def guide_commands(g) -> Iterator[tuple[str, str]]:
    """(checklist item, command) for every command of a guide."""
    for c in g.env_checks:
        if c.command:
            yield f"env_checks.{c.id}", c.command
    for s in g.steps:
        for cmd in s.commands:
            yield f"steps.{s.id}", cmd
    for v in g.verification:
        for cmd in v.commands:
            yield f"verification.{v.id}", cmd


# bashlex does not take a quoted here-document delimiter (<<'EOF'); what it parses is the same.
_QUOTED_DELIMITER = re.compile(r"<<(-?)\s*(['\"])(\w+)\2")


def _for_bashlex(command: str) -> str:
    return _QUOTED_DELIMITER.sub(r"<<\1\3", command)


def _comment_only(command: str) -> bool:
    return all(not line.strip() or line.lstrip().startswith("#") for line in command.splitlines())


def shell_problem(command: str) -> str | None:
    """Why the command is neither shell nor Python source, if it is neither."""
    if _comment_only(command):
        return None  # a line for a batch script or a config file, written as a comment
    try:
        bashlex.parse(_for_bashlex(command))
        return None
    except Exception as exc:  # bashlex raises its ParsingError and, on odd input, others
        shell_error = f"{type(exc).__name__}: {exc}"
    try:
        compile(command, "<guide command>", "exec")
        return None  # Python to put in the reader's script
    except SyntaxError:
        return f"does not parse as shell ({shell_error}) nor compile as Python"


def unquote(word: str) -> str:
    """A shell word as bash reads it: quotes removed, escapes applied. bashlex's own reading
    drops a backslash inside double quotes before any character, where bash keeps it unless
    the character is $ ` " \\ or a newline (so "\\ufffd" reached Python as "ufffd")."""
    out, i, n = [], 0, len(word)
    while i < n:
        c = word[i]
        if c == "'":
            j = word.index("'", i + 1)
            out.append(word[i + 1:j])
            i = j + 1
        elif c == '"':
            i += 1
            while word[i] != '"':
                if word[i] == "\\" and word[i + 1] in '$`"\\\n':
                    if word[i + 1] != "\n":
                        out.append(word[i + 1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            i += 1
        elif c == "\\" and i + 1 < n:
            if word[i + 1] != "\n":
                out.append(word[i + 1])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _children(node) -> list:
    kids = []
    for attr in ("parts", "list"):
        kids += [k for k in (getattr(node, attr, None) or []) if hasattr(k, "kind")]
    command = getattr(node, "command", None)
    if hasattr(command, "kind"):
        kids.append(command)  # the inside of $( … )
    return kids


def _walk(node, source: str, found: list, stdin: bool = False) -> None:
    if node.kind == "pipeline":
        # Every command after the first of a pipeline reads what the one before it prints.
        for i, part in enumerate(node.parts):
            _walk(part, source, found, stdin=i > 0)
        return
    if node.kind == "command":
        _command(node, source, found, stdin)
    for child in _children(node):
        _walk(child, source, found)


def _command(node, source: str, found: list, stdin: bool) -> None:
    words = [p for p in node.parts if p.kind == "word"]
    redirects = [p for p in node.parts if p.kind == "redirect"]
    heredocs = [r.heredoc.value.rsplit("\n", 1)[0] for r in redirects if getattr(r, "heredoc", None) is not None]
    targets = [r.output.word for r in redirects if r.type in (">", ">>") and hasattr(r.output, "word")]
    names = [unquote(source[w.pos[0]:w.pos[1]]) for w in words]
    if heredocs and any(t.endswith(".py") for t in targets):
        found.append((heredocs[0], (), False))  # cat > check.py <<EOF: a script the next command runs
        return
    for i, name in enumerate(names):
        if "=" in name and not _PYTHON.fullmatch(name):
            continue  # VAR=value before the command
        if not _PYTHON.fullmatch(name):
            return
        rest = names[i + 1:]
        j = 0
        while j < len(rest):
            arg = rest[j]
            if arg == "-c" and j + 1 < len(rest):
                found.append((rest[j + 1], tuple(rest[j + 2:]), stdin))
                return
            if arg in ("-W", "-X"):
                j += 2
                continue
            if arg.startswith("-") and arg != "-":
                if arg == "-m":
                    return
                j += 1
                continue
            break
        if heredocs and (j == len(rest) or rest[j] == "-"):
            found.append((heredocs[0], (), False))  # python - <<EOF, python3 <<EOF
        return


def python_snippets(command: str) -> list[tuple[str, tuple[str, ...], bool]]:
    """(code, args, reads stdin) of the Python a shell command runs."""
    source = _for_bashlex(command)
    try:
        trees = bashlex.parse(source)
    except Exception:
        return []
    found: list = []
    for t in trees:
        _walk(t, source, found)
    return found


def snippets(guides) -> list[Snippet]:
    out = []
    for g in guides:
        for where, cmd in guide_commands(g):
            for code, args, stdin in python_snippets(cmd):
                out.append(Snippet(g.id, where, code, args, stdin))
    return out


def imported_modules(code: str) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def load_skip() -> dict[tuple[str, str], dict]:
    entries = yaml.safe_load(SKIP_FILE.read_text(encoding="utf-8")) or []
    return {(e["guide"], e["code"]): e for e in entries}


def gpu_runs() -> dict[tuple[str, str], int]:
    """(guide, snippet key) -> exit status, from the GPU run's log (repro/commands/README.md)."""
    runs: dict[tuple[str, str], int] = {}
    text = GPU_LOG.read_text(encoding="utf-8") if GPU_LOG.exists() else ""
    for m in re.finditer(r"^### ([a-z0-9-]+): (.*?)\nrc=(-?\d+)", text, re.M | re.S):
        for code, _, _ in python_snippets(m.group(2)):
            runs[(m.group(1), hashlib.sha256(code.encode("utf-8")).hexdigest()[:12])] = int(m.group(3))
    return runs


_LOOKED_UP = re.compile(r"""(?:find_spec|version|requires|distribution|import_module)\(\s*['"]([A-Za-z0-9_]+)""")
_GPU = re.compile(r"device=['\"]cuda|\.cuda\(|torch\.cuda\.|cuda:\d|nvml|nccl|libcuda|libcudnn|cudnn\.|"
                  r"flash_attn_func|torch\.compile|gpus|device_map=['\"](?:auto|cuda)")
_READER = re.compile(r"open\(|read_csv|MODEL_DIR|CKPT|ADAPTER_DIR|sys\.argv|sys\.stdin|localhost|/path/to|'<|\bMODEL\b")
_NETWORK = re.compile(r"hf_hub_download|snapshot_download|HfApi|whoami|model_info|urlopen|requests\.|"
                      r"from_pretrained\(\s*['\"][A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+['\"]")
_PLATFORM = re.compile(r"backends\.mps|add_dll_directory|win32|WinDLL|\.dll\b")


def _proposal(s: Snippet, runs: dict) -> dict:
    """A first guess at what a snippet needs, for an author to check before it is written down."""
    import importlib.util
    modules = imported_modules(s.code) | set(_LOOKED_UP.findall(s.code))
    needs = sorted(f"package:{m}" for m in modules
                   if m not in sys.stdlib_module_names and importlib.util.find_spec(m) is None)
    for need, pattern in (("gpu", _GPU), ("network", _NETWORK), ("platform", _PLATFORM)):
        if pattern.search(s.code):
            needs.append(need)
    if s.args or s.stdin or _READER.search(s.code):
        needs.append("reader-input")
    entry = {"guide": s.guide, "code": s.key, "where": s.where, "needs": needs or ["?"]}
    if (s.guide, s.key) in runs:
        entry["gpu_run"] = f"rc={runs[(s.guide, s.key)]}"
    entry["snippet"] = s.code[:100]
    return entry


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))  # this checkout's kb and guides, whatever is installed
    from kb.guides.load import load_guides
    known = load_skip() if SKIP_FILE.exists() else {}
    runs = gpu_runs()
    missing, seen, present = [], set(known), set()
    for s in snippets(load_guides().guides):
        present.add((s.guide, s.key))
        if (s.guide, s.key) not in seen:
            seen.add((s.guide, s.key))
            entry = _proposal(s, runs)
            if entry["needs"] != ["?"]:  # nothing found that CI lacks: the test runs it
                missing.append(entry)
    for guide, key in sorted(set(known) - present):
        print(f"# stale entry, no such snippet any more: {guide} {key}")
    if missing:
        sys.stdout.write(yaml.safe_dump(missing, allow_unicode=True, sort_keys=False, width=10_000, default_flow_style=None))
