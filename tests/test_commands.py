"""Every command a guide gives is checked by a machine (issue 19, item 1).

Shell commands parse (bashlex); an entry that is not shell must be Python that compiles. Every
Python snippet the commands run (`python -c`, a here-document fed to python or written to a
.py file) compiles, and runs here, in a temporary directory with no network, unless
repro/commands/skip.yaml says what it needs that CI does not have: a GPU, a package that is not
installed here (checked: once it is, the snippet runs), the reader's own files or server, the
network, another platform. The GPU-needing ones were run on a GPU machine; their exit status
there is kept beside them (repro/commands/README.md).
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import pytest

from kb.guides.load import load_guides
from tests.guide_commands import NEEDS, SKIP_FILE, Snippet, guide_commands, load_skip, shell_problem, snippets

TIMEOUT_S = 20
# No network for the snippets: every proxy points at a closed port and the hubs are offline.
_NO_NET = {"HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9", "ALL_PROXY": "http://127.0.0.1:9",
           "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9", "NO_PROXY": "",
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PIP_NO_INDEX": "1"}


@pytest.fixture(scope="module")
def guides():
    return load_guides().guides


@pytest.fixture(scope="module")
def all_snippets(guides) -> list[Snippet]:
    return snippets(guides)


def test_every_command_parses_as_shell_or_compiles_as_python(guides):
    bad = [f"{g.id} {where}: {problem}: {cmd[:120]!r}" for g in guides for where, cmd in guide_commands(g)
           if (problem := shell_problem(cmd))]
    assert not bad, "\n".join(bad)


def test_every_python_snippet_compiles(all_snippets):
    bad = []
    for s in all_snippets:
        try:
            compile(s.code, f"<{s.guide} {s.where}>", "exec")
        except SyntaxError as exc:
            bad.append(f"{s.guide} {s.where}: {exc}: {s.code[:120]!r}")
    assert not bad, "\n".join(bad)


def _unmet(needs: list[str]) -> list[str]:
    """The needs this machine does not meet: a GPU, files and the rest never; a package when
    it cannot be imported here."""
    return [n for n in needs if not n.startswith("package:") or importlib.util.find_spec(n.split(":", 1)[1]) is None]


def test_the_skip_list_is_current_and_says_why(all_snippets):
    present = {(s.guide, s.key) for s in all_snippets}
    problems = []
    for (guide, key), entry in load_skip().items():
        if (guide, key) not in present:
            problems.append(f"{guide} {key}: no such snippet any more (the command changed): remove or update the entry")
        needs = entry.get("needs") or []
        if not needs:
            problems.append(f"{guide} {key}: says nothing about what it needs")
        for n in needs:
            if n not in NEEDS and not (n.startswith("package:") and len(n) > len("package:")):
                problems.append(f"{guide} {key}: unknown need {n!r} (one of {', '.join(NEEDS)}, or package:<module>)")
    assert not problems, "\n".join(problems)


def _run(s: Snippet) -> tuple[Snippet, int | str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_PROXY", "_proxy"))}
    env.update(_NO_NET)
    with tempfile.TemporaryDirectory() as cwd:
        try:
            r = subprocess.run([sys.executable, "-c", s.code, *s.args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return s, "timeout", ""
    return s, r.returncode, (r.stderr.strip().splitlines() or [""])[-1]


def test_snippets_that_need_nothing_ci_lacks_run(all_snippets):
    skip = load_skip()
    runnable, seen = [], set()
    for s in all_snippets:
        entry = skip.get((s.guide, s.key))
        if entry is not None and _unmet(entry.get("needs") or ["?"]):
            continue
        if (s.guide, s.key) not in seen:
            seen.add((s.guide, s.key))
            runnable.append(s)
    assert len(runnable) >= 10, "the snippets CI can run were not found"  # the finder itself works
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        results = list(pool.map(_run, runnable))
    failed = [f"{s.guide} {s.where} [{s.key}]: exit {rc}: {err[:160]}\n    {s.code[:160]!r}"
              for s, rc, err in results if rc != 0]
    assert not failed, ("these snippets fail here; fix them, or list what they need in "
                        f"{SKIP_FILE.relative_to(SKIP_FILE.parents[2])}:\n" + "\n".join(failed))


@pytest.mark.parametrize(("command", "code", "args", "stdin"), [
    # Inside double quotes bash keeps a backslash before an ordinary character: Python must get \ufffd.
    ("curl -s x | python3 -c \"import json, sys; print(json.load(sys.stdin)['t'].count('\\ufffd'))\"",
     "import json, sys; print(json.load(sys.stdin)['t'].count('\\ufffd'))", (), True),
    ("A=1 python -W always -c 'import os' config.json", "import os", ("config.json",), False),
    ('git checkout "$(python -c "import vllm; print(vllm.__version__)")"', "import vllm; print(vllm.__version__)", (), False),
    ("cat > /tmp/check.py <<'EOF'\nimport torch\nprint(1)\nEOF\ntorchrun /tmp/check.py", "import torch\nprint(1)", (), False),
    ("python - <<'EOF'\nprint(2)\nEOF", "print(2)", (), False),
])
def test_the_python_a_command_runs_is_read_as_bash_reads_it(command, code, args, stdin):
    from tests.guide_commands import python_snippets
    assert python_snippets(command) == [(code, args, stdin)]


@pytest.mark.parametrize("command", ["pip install <package>", "kill <pid>", "python -c \"import <package>\""])
def test_a_placeholder_in_angle_brackets_is_refused(command):
    from tests.guide_commands import python_snippets
    # The shell reads <…> as a redirection; inside python -c it does not compile.
    found = python_snippets(command)
    assert shell_problem(command) or any(_fails_to_compile(code) for code, _, _ in found)


def _fails_to_compile(code: str) -> bool:
    try:
        compile(code, "<x>", "exec")
        return False
    except SyntaxError:
        return True
