"""Every command-line form, run as a person or a script would run it."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import DATA, ROOT

SEED1 = "vllm-dsv41-sm120-no-common-block-size"


def kb(*args, stdin: str | None = None, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "kb", *args], cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=120)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_match_human_readable():
    out = kb("match", str(DATA / "pastes" / "seed1-serve.log")).stdout
    assert out.startswith("1. [MATCH") and SEED1 in out.splitlines()[0]
    assert "Line 13 of your paste" in out


def test_match_json_from_stdin():
    out = json.loads(kb("match", "--json", "-", stdin=(DATA / "pastes" / "seed2-serve.log").read_text()).stdout)
    first = out["matches"][0]
    assert first["id"] == "vllm-dsv41-adaptive-verification-illegal-memory-access"
    assert first["confidence"] == first["tier"] == "match" and isinstance(first["score"], float)
    assert first["scope"] == "specific"
    assert {"id", "score", "confidence", "explanation"} <= set(first)  # the fields it has always had
    # A specific guide's result has no triage object; the diagnosis adds the guide's title and status.
    assert set(first) - {"id", "score", "confidence", "explanation"} == {"tier", "scope", "title", "status"}


def test_match_jsonl(tmp_path):
    cases = tmp_path / "cases.jsonl"
    cases.write_text("\n".join(json.dumps(c) for c in [
        {"id": "a", "text": (DATA / "pastes" / "seed1-serve.log").read_text()},
        {"id": "b", "text": "nothing to see here"},
    ]) + "\n")
    lines = [json.loads(line) for line in kb("match", "--jsonl", str(cases)).stdout.splitlines()]
    assert [line["id"] for line in lines] == ["a", "b"]
    assert lines[0]["matches"][0]["id"] == SEED1
    assert all(m["confidence"] != "match" for m in lines[1]["matches"])


def test_validate_passes_on_the_knowledge_base():
    assert kb("validate").stdout.startswith("OK:")


def test_validate_fails_listing_every_problem(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "a.yaml").write_text("id: a\n")
    (tmp_path / "x" / "b.yaml").write_text("id: [\n")
    proc = kb("validate", str(tmp_path), check=False)
    assert proc.returncode == 1
    assert "x/a.yaml" in proc.stdout and "x/b.yaml" in proc.stdout


@pytest.mark.parametrize("lang, heading", [("en", "## Steps"), ("zh", "## 解决步骤")])
def test_show_markdown(lang, heading):
    out = kb("show", SEED1, "--lang", lang).stdout
    assert heading in out and "- [ ] " in out


def test_show_yaml_and_unknown_id():
    assert kb("show", SEED1, "--format", "yaml").stdout.startswith("# yaml-language-server:")
    proc = kb("show", "no-such-guide", check=False)
    assert proc.returncode == 2 and "No guide" in proc.stderr


def test_list():
    rows = [line.split("\t") for line in kb("list").stdout.splitlines()]
    assert [SEED1, "vllm", "unresolved"] == rows[[r[0] for r in rows].index(SEED1)][:3]


def test_explain_says_why_not():
    out = kb("explain", "vllm-dsv41-adaptive-verification-illegal-memory-access", "-", stdin="CUDA error: an illegal memory access was encountered\n").stdout
    assert "context[0]" in out and "anchor not found" in out
    assert "confidence similar" in out


def test_new_from_error_proposes_templates_and_redacts():
    paste = 'File "/home/alice/serve.py", line 3\nValueError: No available memory for the cache blocks at 10.1.2.3 token hf_abcdefghijklmnopqrstuvwxyz1234\n'
    out = kb("new", "--from-error", "-", stdin=paste).stdout
    assert "template:" in out and "alice" not in out and "hf_abcdefghij" not in out and "10.1.2.3" not in out
    import yaml
    data = yaml.safe_load(out)
    assert data["signatures"][0]["template"].startswith("ValueError: No available memory for the cache blocks")


def test_generated_files_are_fresh(monkeypatch):
    """What `kb generate` writes besides the README's blocks of figures: the guide schema and the
    README's command-line help. (Each figure block is checked by tests/test_readme.py, once; running
    `kb generate --check` here computed every figure a second time, the suite's slowest test.)"""
    from kb.authoring.generate import README, SCHEMA, readme_text, schema_text
    from kb.cli import build_parser
    monkeypatch.setenv("COLUMNS", "100")  # the width `kb generate` writes the help at
    stale = "stale generated file; run `python -m kb generate`: "
    assert SCHEMA.read_text(encoding="utf-8") == schema_text(), stale + str(SCHEMA.relative_to(ROOT))
    current = README.read_text(encoding="utf-8")
    assert readme_text(current, build_parser()) == current, stale + "README.md (cli-help)"


def test_generate_has_a_check_mode():
    assert "--check" in kb("generate", "--help").stdout


def test_missing_file_is_a_clear_error():
    proc = kb("match", "/no/such/file", check=False)
    assert proc.returncode == 2 and "no such file" in proc.stderr


def test_explain_agrees_with_match_on_a_wrapped_line():
    paste = "ValueError: No common block size for\n64\n"
    out = kb("explain", SEED1, "-", stdin=paste).stdout
    assert "verified on line(s) 1" in out and "confidence match" in out


def test_match_exit_status_follows_grep(tmp_path):
    assert kb("match", str(DATA / "pastes" / "seed1-serve.log"), check=False).returncode == 0
    none = kb("match", "-", stdin="ZeroDivisionError: division by zero\n", check=False)
    assert none.returncode == 1 and "No guide for this error yet" in none.stdout
    assert kb("match", "--json", "-", stdin="", check=False).returncode == 1
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps({"id": "b", "text": "nothing to see here"}) + "\n")
    assert kb("match", "--jsonl", str(cases), check=False).returncode == 1
    cases.write_text(json.dumps({"id": "b", "text": "nothing"}) + "\n"
                     + json.dumps({"id": "a", "text": (DATA / "pastes" / "seed1-serve.log").read_text()}) + "\n")
    assert kb("match", "--jsonl", str(cases), check=False).returncode == 0
    cases.write_text("not json\n")
    assert kb("match", "--jsonl", str(cases), check=False).returncode == 2
    assert "Exit status" in kb("match", "--help").stdout


@pytest.mark.parametrize("path", [ROOT / "docs" / "guide.png", Path(sys.executable).resolve()], ids=["PNG", "ELF"])
def test_match_refuses_a_binary_file_as_the_app_does(path):
    from kb.engine.input import looks_binary
    assert looks_binary(path.read_bytes()[:65536])  # the app's verdict on the same bytes
    proc = kb("match", str(path), check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "is not a text file" in proc.stderr and "Traceback" not in proc.stderr


def test_match_reads_a_nul_padded_log_with_a_note():
    log = (DATA / "pastes" / "seed1-serve.log").read_bytes() + b"\0" * 4096
    proc = subprocess.run([sys.executable, "-m", "kb", "match", "-"], cwd=ROOT, input=log, capture_output=True, timeout=120)
    assert proc.returncode == 0 and SEED1.encode() in proc.stdout.splitlines()[0]
    assert b"NUL bytes" in proc.stderr


def test_python_without_the_packages_is_told_how_to_run_kb():
    # -S: no site-packages, as the system Python of a fresh clone has none of the project's packages.
    proc = subprocess.run([sys.executable, "-S", "-m", "kb", "list"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "bash scripts/install" in proc.stderr and ".venv/bin/kb" in proc.stderr


def test_kb_command_is_declared_and_installed():
    import importlib
    import os
    import tomllib
    target = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]["kb"]
    module, func = target.split(":")
    assert callable(getattr(importlib.import_module(module), func))
    command = ROOT / ".venv" / "bin" / "kb"
    if not command.exists():
        if os.environ.get("CI"):
            pytest.fail("scripts/install did not install the kb command")
        pytest.skip("the kb command is installed by scripts/install")
    proc = subprocess.run([str(command), "list"], cwd="/", capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and SEED1 in proc.stdout
