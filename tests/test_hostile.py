"""Hostile input: nothing a paste, an upload, a link or a guide file contains may hang,
crash or inject. Each test tries one attack and checks the outcome; big inputs are built
in memory. Timings are measured in bench/hostile.py, never asserted here."""
from __future__ import annotations

import copy
import logging
import os
import re
import uuid
from pathlib import Path

import pytest
import yaml
from streamlit.testing.v1 import AppTest

from kb.diagnosis import as_json, as_text, diagnose
from kb.engine.index import load_index
from kb.engine.match import match
from kb.engine.parse import last_error_line, parse
from kb.guides.load import load_guides
from tests.conftest import ROOT

GOOD = ROOT / "guides" / "vllm" / "vllm-dsv41-sm120-no-common-block-size.yaml"
GOOD_ID = GOOD.stem
# A known error whose guide is specific, so that it answers "match" through any hostile content
# (a class guide, such as the illegal-memory-access one, only gives its triage procedure).
KNOWN = "RuntimeError: CUDA error: no kernel image is available for execution on the device"
KNOWN_GUIDE = "cuda-no-kernel-image"
LOG_LINE = "INFO 11-29 10:00:01 [core.py:123] Avg prompt throughput: 0.0 tokens/s, Running: 0 reqs\n"


@pytest.fixture(scope="module")
def index():
    return load_index(ROOT / "guides")


def top(result) -> str | None:
    return result.confident[0].guide_id if result.confident else None


# ---------------------------------------------------------------- pastes ----------

def chain(n: int, link: str) -> str:
    block = ("Traceback (most recent call last):\n"
             '  File "/srv/app/step{i}.py", line {i}, in step{i}\n'
             "    raise ValueError(f'step {i} failed')\n"
             "ValueError: step {i} failed\n\n" + link + "\n\n")
    return "".join(block.format(i=i) for i in range(n)) + "Traceback (most recent call last):\n" + \
        '  File "/srv/app/main.py", line 1, in <module>\n' + KNOWN + "\n"


def nested_group(depth: int) -> str:
    """An exception group nested `depth` deep, as Python prints it (with its '| ' margins)."""
    lines = ["  + Exception Group Traceback (most recent call last):"]
    for d in range(depth):
        pad = "  " + "| " * d
        lines += [f"{pad}+-+---------------- 1 ----------------", f"{pad}  | ExceptionGroup: level {d} (1 sub-exception)"]
    lines.append("  " + "| " * depth + KNOWN)
    return "\n".join(lines) + "\n"


PASTES = {
    "empty": "",
    "whitespace": " \n\t\r\n   \u3000\n",
    "10 MB log": LOG_LINE * (10_000_000 // len(LOG_LINE)) + KNOWN + "\n",
    "2 MB line without newline": "x" * 2_000_000 + " " + KNOWN,
    "1,000,000 short lines": "ok\n" * 1_000_000 + KNOWN + "\n",
    "1,000 chained exceptions": chain(1000, "During handling of the above exception, another exception occurred:"),
    "1,000 direct causes": chain(1000, "The above exception was the direct cause of the following exception:"),
    "exception group 1,000 deep": nested_group(1000),
    # The known error first: an error printed after another failure is not the root error (issue 17).
    "recursion error": KNOWN + "\nTraceback (most recent call last):\n" + '  File "/a.py", line 2, in f\n    return f()\n' * 3 +
                       "  [Previous line repeated 996 more times]\nRecursionError: maximum recursion depth exceeded\n",
    "NUL bytes and controls": "\x00\x01\x02" * 1000 + KNOWN + "\x00\x7f\x1b[0m\n",
    "replacement characters": "\ufffd" * 5000 + "\n" + KNOWN + "\ufffd\n",
    "lone surrogates": "\ud800\udfff\udc00 " + KNOWN + " \ud83d\n",
    "CJK around the error": "模型加载失败，日志如下：\n" + KNOWN + "\n请帮忙看看，谢谢！\n",
    "right-to-left text": "\u202e\u05e9\u05d2\u05d9\u05d0\u05d4 \u0627\u0644\u062e\u0637\u0623: " + KNOWN + " \u202c\u200f\n",
    "emoji": "🔥🔥🔥 " + KNOWN + " 😭👍🏽\u200d\n",
    "only CRs": ("progress 10%\r" * 100_000) + KNOWN + "\r",
    "ANSI bombs": "\x1b[" * 200_000 + "\x1b]" * 200_000 + "\n" + KNOWN + "\n",
    "unterminated OSC": "\x1b]8;;" + "a" * 100_000 + "\n" + KNOWN + "\n",
    "one 'line' of 5 MB": ("ab " * 1_700_000) + KNOWN,
    "a million anchors": ("No common block size for 64 " * 150_000) + "\n",
    "exception names": ("A." * 10_000 + "Error: x\n") * 10 + KNOWN + "\n",
}
EXPECT_KNOWN = {k for k in PASTES if k not in ("empty", "whitespace", "a million anchors")}


@pytest.mark.parametrize("name", list(PASTES))
def test_hostile_paste_gets_a_result(index, name):
    text = PASTES[name]
    result = match(index, text)
    diagnosis = diagnose(index, text)
    assert isinstance(as_text(diagnosis), str)
    out = as_json(diagnosis)
    assert isinstance(out["matches"], list)
    if name in ("empty", "whitespace"):
        assert result.paste.empty and result.matches == []
        assert as_text(diagnosis) == "Nothing to match: the input is empty.\n"
    if name in EXPECT_KNOWN:
        assert top(result) == KNOWN_GUIDE, (name, [(m.guide_id, m.confidence) for m in result.matches])
    nos = [ln.no for ln in result.paste.lines]
    assert nos == sorted(nos)


def test_oversized_paste_keeps_head_and_tail_with_a_note(index):
    text = "HEAD: python -m vllm.entrypoints.openai.api_server --model x\n" + PASTES["10 MB log"]
    result = match(index, text)
    note = result.paste.truncation
    assert note and "skipped" in note and f"{len(text):,}" in note
    assert result.paste.lines[0].text.startswith("HEAD:")  # the head: command line and versions
    assert any(ln.text == "[… middle of the paste skipped …]" for ln in result.paste.lines)
    known = next(ln for ln in result.paste.lines if ln.text == KNOWN)  # the tail: the error
    assert known.no == text.count("\n")  # numbered as in the original paste
    assert as_json(diagnose(index, text))["note"] == note


def test_long_line_keeps_its_end(index):
    paste = parse(PASTES["2 MB line without newline"])
    assert len(paste.lines) == 1 and paste.lines[0].text.endswith(KNOWN)
    assert "shortened" in paste.truncation


def test_a_million_lines_are_cut_to_the_line_budget(index):
    paste = parse(PASTES["1,000,000 short lines"])
    assert len(paste.lines) <= 200_001
    assert paste.lines[-2].text == KNOWN and paste.lines[-2].no == 1_000_001
    assert "skipped" in paste.truncation


def test_the_size_limits_are_configurable():
    text = "first line\n" + "middle\n" * 100 + "last line\n"
    paste = parse(text, limit=60)
    assert paste.lines[0].text == "first line" and paste.lines[-2].text == "last line"
    paste = parse(text, max_lines=10)
    assert len(paste.lines) <= 11 and paste.lines[-2].text == "last line"


def test_deep_chains_find_every_exception(index):
    paste = parse(PASTES["1,000 chained exceptions"])
    assert sum(1 for e in paste.errors if e.exc_type == "ValueError") == 1000
    assert last_error_line(paste) == KNOWN
    assert paste.errors[0].frames == (("step0.py", "step0"),)


def test_hostile_paste_skeleton_and_signature_are_bounded():
    from kb.authoring.skeleton import skeleton
    from kb.feedback.signature import error_signature
    paste = parse("ValueError: the same line\n" * 150_000 + "".join(f"KeyError: 'k{i}'\n" for i in range(5000)))
    assert "ValueError: the same line" in error_signature(paste)
    assert "ValueError: the same line" in skeleton(paste)


# ---------------------------------------------------------------- uploads ---------

class Upload:
    def __init__(self, data: bytes):
        self.data = data

    def getvalue(self) -> bytes:
        return self.data


PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4
ELF = b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 8 + bytes(range(256)) * 8  # the start of a .so
UPLOADS = {
    "PNG image": (PNG, None),
    "ELF shared library": (ELF, None),
    "JPEG": (b"\xff\xd8\xff\xe0\x00\x10JFIF" + bytes(range(256)), None),
    "gzip": (b"\x1f\x8b\x08\x00" + bytes(range(256)), None),
    "random bytes": (bytes((i * 7919 + 13) % 256 for i in range(20_000)), None),
    "only NULs": (b"\x00" * 4096, None),
    "NUL-padded log": ((KNOWN + "\n").encode() * 3 + b"\x00" * 8192, KNOWN),
    "NULs inside lines": (("\x00".join(KNOWN) + "\n").encode(), KNOWN),
    "invalid UTF-8": (b"\xff\xfe\xc3\x28 log start\n" + KNOWN.encode() + b"\n\xe2\x82\n", KNOWN),
    "latin-1 log": ("Fehler: Gerät nicht gefunden\n".encode("latin-1") + KNOWN.encode() + b"\n", KNOWN),
    "UTF-16 with BOM": ((KNOWN + "\n").encode("utf-16"), KNOWN),
    "UTF-16 without BOM": ((KNOWN + "\n").encode("utf-16-le"), KNOWN),
    "empty file": (b"", None),
}


@pytest.mark.parametrize("name", list(UPLOADS))
def test_upload_is_read_or_refused_with_a_message(index, name):
    from components.diagnose_io import read_upload
    data, expect = UPLOADS[name]
    text, message = read_upload(Upload(data))
    if expect is None and data:
        assert text is None and "does not look like text" in message
    elif expect is None:
        assert text == "" and message is None
    else:
        assert top(match(index, text)) == KNOWN_GUIDE
        if b"\x00" in data.replace(b"\xff\xfe", b"") and not data.startswith(b"\xff\xfe"):
            assert "NUL" in message
        if name in ("invalid UTF-8", "latin-1 log"):
            assert "not valid UTF-8" in message


def test_huge_upload_is_cut_before_decoding(monkeypatch, index):
    from components import diagnose_io
    monkeypatch.setattr(diagnose_io, "MAX_BYTES", 100_000)
    data = b"head line\n" + LOG_LINE.encode() * 20_000 + KNOWN.encode() + b"\n"
    text, message = diagnose_io.read_upload(Upload(data))
    assert len(text) <= 100_001 and text.startswith("head line") and text.rstrip().endswith(KNOWN)
    assert f"{len(data):,} bytes" in message
    assert top(match(index, text)) == KNOWN_GUIDE


# ---------------------------------------------------------------- the app ---------

def app(**params) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for k, v in params.items():
        at.query_params[k] = v
    return at.run()


def shown(at: AppTest) -> list[str]:
    """Every string the page hands to Streamlit's Markdown: bodies, titles, labels."""
    out = []
    for kind in ("markdown", "caption", "title", "header", "subheader", "info", "warning", "error", "success"):
        out += [str(e.value) for e in getattr(at, kind)]
    for kind in ("checkbox", "button", "text_area", "text_input", "expander", "toggle", "multiselect"):
        out += [str(getattr(e, "label", "")) for e in getattr(at, kind)]
    out += [str(e.proto.label) for e in at.get("page_link")]
    return out


def no_crash(at: AppTest) -> None:
    assert not at.exception, at.exception
    assert not any("Traceback" in s for s in shown(at))


_MD = None


def markup_in(s: str) -> list[tuple[str, str]]:
    """Links, images and HTML that a Markdown renderer would make of s."""
    global _MD
    if _MD is None:
        from markdown_it import MarkdownIt
        _MD = MarkdownIt("commonmark")
        _MD.validateLink = lambda url: True
    found = []
    for token in _MD.parse(s):
        for t in [token, *(token.children or [])]:
            if t.type in ("image", "html_inline", "html_block"):
                found.append((t.type, t.content))
            elif t.type == "link_open":
                found.append(("link", str(t.attrGet("href"))))
    return found


INJECTION = ("<script>alert(1)</script> <img src=x onerror=alert(1)> [click](javascript:alert(1)) "
             "![pixel](https://evil.example/p.png) :red[INJECTED] $\\LaTeX$ <https://evil.example> &lt;b&gt;")


def _outside_code(s: str) -> str:
    """s without its code spans: what is in a code span is shown literally, pasted lines included."""
    return re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", s)


def assert_inert(at: AppTest, allowed_links: set[str] = frozenset()) -> None:
    for s in shown(at):
        found = [m for m in markup_in(s) if not (m[0] == "link" and m[1] in allowed_links)]
        assert not found, (found, s[:300])
        plain = _outside_code(s)
        assert ":red[INJECTED]" not in plain and "<script>" not in plain.replace("\\<", ""), s[:300]


def test_pasted_markup_is_shown_as_text():
    at = app()
    at.text_area(key="paste").input(f"{INJECTION}\n{KNOWN} {INJECTION}\nValueError: {INJECTION}\n").run()
    no_crash(at)
    assert any("Match" in s for s in shown(at))
    assert_inert(at)


def test_pasted_markup_without_a_match_is_shown_as_text():
    at = app()
    at.text_area(key="paste").input(f"ValueError: {INJECTION}\n").run()
    no_crash(at)
    assert any("No guide for this error yet" in s for s in shown(at))
    assert_inert(at)


def test_oversized_paste_shows_which_part_was_analysed(monkeypatch):
    monkeypatch.setenv("KB_MAX_PASTE_CHARS", "20000")  # read when the paste is parsed, not at import
    at = app()
    at.text_area(key="paste").input("HEAD\n" + LOG_LINE * 1000 + KNOWN + "\n").run()
    no_crash(at)
    warning = " ".join(w.value for w in at.warning)
    assert "Only part of the input was analysed" in warning and "skipped" in warning
    assert any(f"{1002:>6}" in s for s in shown(at))  # the error's line number as pasted


@pytest.mark.parametrize("name", ["PNG image", "ELF shared library", "NUL-padded log", "invalid UTF-8", "empty file"])
def test_upload_in_the_app(name):
    data, expect = UPLOADS[name]
    at = app()
    at.file_uploader(key="upload").set_value((f"crash.{name[:3].lower()}", data, "application/octet-stream")).run()
    no_crash(at)
    messages = " ".join(w.value for w in [*at.warning, *at.info])
    if expect is None and data:
        assert "does not look like text" in messages
    elif expect is None:
        assert "Paste an error or upload a log to start." in messages
    else:
        assert any("Match" in s for s in shown(at))


def test_huge_environment_report_is_cut_with_a_note(monkeypatch):
    at = app()
    at.text_area(key="env_text").input("torch==2.5.1\n" * 30_000 + "vllm==0.6.4\n").run()
    no_crash(at)
    assert any("only its first" in c.value for c in at.caption)


@pytest.mark.parametrize("params", [
    {"guide": "no-such-guide"},
    {"guide": "x" * 10_000},
    {"guide": "../../etc/passwd"},
    {"guide": "..\\..\\windows\\win.ini"},
    {"guide": "/etc/passwd"},
    {"guide": "<script>alert(1)</script>"},
    {"guide": "\x00\u202e%00"},
    {"guide": GOOD_ID, "done": "no-such-item,<script>alert(1)</script>"},
    {"guide": GOOD_ID, "done": "," * 5000},
    {"guide": GOOD_ID, "done": ("vllm-version," * 2000)[:10_000]},
    {"guide": GOOD_ID, "done": "\x00" + "a" * 10_000},
    {"done": "vllm-version"},
    {"lang": "xx"},
    {"lang": "<img src=x onerror=alert(1)>"},
    {"lang": "z" * 10_000},
    {"guide": GOOD_ID, "lang": "../../zh"},
], ids=lambda p: ",".join(f"{k}={v[:20]!r}" for k, v in p.items()))
def test_hostile_link_is_a_friendly_page(params):
    at = app(**params)
    no_crash(at)
    assert_inert(at, allowed_links=_reference_urls())
    everything = "\n".join(shown(at))
    for value in params.values():
        if len(value) > 12 and value != GOOD_ID:
            assert value not in everything and value[:40] not in everything  # never reflected
    gid = params.get("guide")
    if gid is not None and gid != GOOD_ID:
        assert "There is no guide with this id." in everything
    if params.get("lang") not in (None, "en", "zh"):
        assert "Unknown language in the link; showing English." in everything
    if gid == GOOD_ID and "done" in params:
        data = good_data()
        valid = {i["id"] for part in ("env_checks", "steps", "verification") for i in data[part]}
        asked = {x for x in params["done"][:2000].split(",") if x}
        ticked = {c.key.split(":")[-1] for c in at.checkbox if c.key and c.key.startswith("chk:") and c.value}
        assert ticked == asked & valid
        assert ("Some ticked items in the link do not exist in this guide and were ignored." in everything) == bool(asked - valid)


def _reference_urls() -> set[str]:
    data = yaml.safe_load(GOOD.read_text(encoding="utf-8"))
    return {r["url"] for r in data["references"] if r.get("url")}


def test_unexpected_error_is_a_short_message_and_is_logged(monkeypatch, caplog):
    import components.diagnose

    def boom(*args, **kwargs):
        raise RuntimeError("secret internal detail /srv/kb/private")

    monkeypatch.setattr(components.diagnose, "diagnose_paste", boom)
    at = app()
    with caplog.at_level(logging.ERROR, logger="kb.app"):
        at.text_area(key="paste").input(KNOWN).run()
    assert not at.exception
    everything = "\n".join(shown(at))
    assert "Something went wrong on this page" in everything
    assert "secret internal detail" not in everything and "Traceback" not in everything
    assert any(r.exc_info and "secret internal detail" in str(r.exc_info[1]) for r in caplog.records)


# ---------------------------------------------------------------- guide files -----

def good_data() -> dict:
    data = yaml.safe_load(GOOD.read_text(encoding="utf-8"))
    data["related"] = []
    return data


def variant(gid: str, change) -> str:
    data = copy.deepcopy(good_data())
    data["id"] = gid
    change(data)
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)


def _set(path: str, value):
    def change(data):
        keys = path.split(".")
        node = data
        for k in keys[:-1]:
            node = node[int(k)] if isinstance(node, list) else node[k]
        last = keys[-1]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return change


def _add_signature(sig: dict):
    def change(data):
        data["signatures"] = [*data["signatures"], {"id": "evil", **sig}]
    return change


N_SIGS = len(good_data()["signatures"])  # the index of a signature added to a copy of GOOD
MARKER = f"/tmp/kb-pwned-{uuid.uuid4().hex}"
LAUGHS = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},"
    f"*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)}]\n" for i in range(8))

# name -> (file text or bytes, what the problem says, the field it names or None)
GUIDE_ATTACKS: dict[str, tuple[object, str, str | None]] = {
    "python object tag": (f"id: !!python/object/apply:os.system ['touch {MARKER}']\n", "tags that build objects", None),
    "python object/new tag": (f"id: !!python/object/new:subprocess.Popen [['touch', '{MARKER}']]\n", "tags that build objects", None),
    "python name tag": ("id: !!python/name:os.system\n", "tags that build objects", None),
    "local tag": ("id: !evil x\n", "tags that build objects", None),
    "billion laughs": (LAUGHS, "aliases are not allowed", None),
    "merge key": ("<<: {id: x}\nid: y\n", "merge keys", None),
    "duplicate keys": ("id: a\nid: b\n", "duplicate key 'id'", None),
    "unhashable key": ("? [a, b]\n: c\n", "mapping key must be a plain value", None),
    "5,000-digit integer": ("id: " + "9" * 5000 + "\n", "cannot read this value", None),
    "impossible date": ("last_reviewed: 2025-13-45\n", "cannot read this value", None),
    "nesting 100,000 deep": ("title: " + "[" * 100_000 + "]" * 100_000 + "\n", "maximum nesting depth", None),
    "not UTF-8": (b"id: \xff\xfe\n", "not UTF-8", None),
    "NUL byte": (b"id: a\x00b\n", "control characters", None),
    "not a mapping": ("- a\n- b\n", "must be a YAML mapping", None),
    "two documents": ("id: a\n---\nid: b\n", "single document", None),
    "20,000 unknown keys": ("".join(f"k{i}: {i}\n" for i in range(20_000)), "more problems", None),
    "wrong type: status": (lambda gid: variant(gid, _set("status", 5)), "Input should be", "status"),
    "wrong type: signatures": (lambda gid: variant(gid, _set("signatures", "everything")), "valid list", "signatures"),
    "wrong type: date": (lambda gid: variant(gid, _set("last_reviewed", "yesterday")), "date", "last_reviewed"),
    "javascript: url": (lambda gid: variant(gid, _set("references.0.url", "javascript:alert(1)")), "https://", "references.0.url"),
    "data: url": (lambda gid: variant(gid, _set("references.0.url", "data:text/html;base64,PHNjcmlwdD4=")), "https://", "references.0.url"),
    "javascript: link in prose": (lambda gid: variant(gid, _set("summary.en", "See [docs](javascript:alert(1)).")), "a link (", "summary"),
    "data: link in prose": (lambda gid: variant(gid, _set("fastest_fix.en", "[x](data:text/html,<script>alert(1)</script>)")), "a link (", "fastest_fix"),
    "raw HTML in prose": (lambda gid: variant(gid, _set("title.en", "<script>alert(1)</script> title")), "raw HTML", "title"),
    "HTML event handler in prose": (lambda gid: variant(gid, _set("symptoms.0.zh", "<img src=x onerror=alert(1)>")), "raw HTML", "symptoms.0"),
    "quadratic Markdown": (lambda gid: variant(gid, _set("summary.en", "![" * 9000 + "](x)")), "is not prose", "summary"),
    "empty template": (lambda gid: variant(gid, _add_signature({"template": "   "})), "empty", f"signatures.{N_SIGS}"),
    "template {any}": (lambda gid: variant(gid, _add_signature({"template": "{any}"})), "literal run", "signatures[evil]"),
    "template of a generic line": (lambda gid: variant(gid, _add_signature({"template": "RuntimeError: {any}"})), "generic line", "signatures[evil]"),
    "template Traceback": (lambda gid: variant(gid, _add_signature({"template": "Traceback (most recent call last):"})), "generic line", "signatures[evil]"),
    "regex .*": (lambda gid: variant(gid, _add_signature({"regex": ".*", "anchor": "anything at all"})), "empty string", "signatures[evil]"),
    "regex .+": (lambda gid: variant(gid, _add_signature({"regex": ".+", "anchor": "anything at all"})), "almost any", "signatures[evil]"),
    "regex backreference": (lambda gid: variant(gid, _add_signature({"regex": "(a+)\\1+b", "anchor": "aaaaaaaa"})), "not a valid RE2 pattern", "signatures[evil]"),
    "regex lookahead": (lambda gid: variant(gid, _add_signature({"regex": "(?=(a+)+b)aaaaaaaa", "anchor": "aaaaaaaa"})), "not a valid RE2 pattern", "signatures[evil]"),
    "regex too big": (lambda gid: variant(gid, _add_signature({"regex": "((a{100}){100}){100}", "anchor": "aaaaaaaa"})), "not a valid RE2 pattern", "signatures[evil]"),
    "regex short anchor": (lambda gid: variant(gid, _add_signature({"regex": "abc", "anchor": "abc"})), "at least 8 characters", f"signatures.{N_SIGS}"),
}


def kb_with(tmp_path: Path, files: dict[str, object]) -> Path:
    root = tmp_path / "kb"
    (root / "vllm").mkdir(parents=True)
    (root / "vllm" / GOOD.name).write_text(yaml.safe_dump(good_data(), allow_unicode=True, sort_keys=False), encoding="utf-8")
    for name, content in files.items():
        gid = name
        if callable(content):
            content = content(gid)
        path = root / "vllm" / f"{gid}.yaml"
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return root


def _gid(name: str) -> str:
    return "evil-" + "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-").replace("--", "-")


@pytest.mark.parametrize("name", list(GUIDE_ATTACKS))
def test_hostile_guide_is_refused_and_the_rest_served(tmp_path, name, capsys):
    content, message, field = GUIDE_ATTACKS[name]
    gid = _gid(name)
    root = kb_with(tmp_path, {gid: content})
    index = load_index(root)
    mine = [p for p in index.problems if f"{gid}.yaml" in p.path]
    assert any(message in p.message for p in mine), [str(p) for p in index.problems]
    if field is not None:
        assert any(p.field and p.field.startswith(field) and message in p.message for p in mine), [str(p) for p in mine]
    assert GOOD_ID in index.guides  # the good guide is still served (and a copy of it, without its bad signature)
    assert top(match(index, GOOD.read_text(encoding="utf-8").split("raw_errors:", 1)[1])) in (GOOD_ID, gid)
    assert not os.path.exists(MARKER)
    # `python -m kb validate` says the same, with the file, and fails.
    from kb.cli import main
    assert main(["validate", str(root)]) == 1
    out = capsys.readouterr().out
    assert any(f"{gid}.yaml" in line and message in line and (field is None or field in line) for line in out.splitlines()), out


def test_fifty_megabyte_guide_is_not_read(tmp_path):
    root = kb_with(tmp_path, {})
    big = root / "vllm" / "huge.yaml"
    with big.open("wb") as f:  # sparse: 50 MB that take no disk
        f.truncate(50 * 1024 * 1024)
    loaded = load_guides(root)
    assert any("huge.yaml" in p.path and "52,428,800 bytes" in p.message for p in loaded.problems)
    assert [g.id for g in loaded.guides] == [GOOD_ID]


def test_special_files_never_block_loading(tmp_path):
    root = kb_with(tmp_path, {})
    if hasattr(os, "mkfifo"):
        os.mkfifo(root / "vllm" / "pipe.yaml")  # reading it would wait forever
    for target in ("/dev/zero", "/dev/urandom"):
        if os.path.exists(target):
            (root / "vllm" / f"{Path(target).name}.yaml").symlink_to(target)
    (root / "vllm" / "loop.yaml").symlink_to(root / "vllm" / "loop.yaml")
    loaded = load_guides(root)
    assert [g.id for g in loaded.guides] == [GOOD_ID]


def test_catastrophic_regex_is_linear(tmp_path):
    root = kb_with(tmp_path, {"evil-backtracking": lambda gid: variant(gid, _add_signature({"regex": "(a+)+$", "anchor": "aaaaaaaaaa"}))})
    index = load_index(root)
    assert "evil-backtracking" in index.guides
    result = match(index, "a" * 200_000 + "!\n" + ("a" * 30 + "!\n") * 10_000)
    assert isinstance(result.matches, list)


@pytest.fixture
def app_kb(tmp_path, monkeypatch):
    """The app over a knowledge base under tmp_path; the shared index is rebuilt around the test."""
    from components.state import get_index

    def use(files: dict[str, object]) -> Path:
        root = kb_with(tmp_path, files)
        monkeypatch.setenv("KB_GUIDES_DIR", str(root))
        monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
        get_index.clear()
        return root

    yield use
    get_index.clear()


def test_app_serves_the_good_guides_beside_every_bad_one(app_kb, caplog):
    app_kb({_gid(name): content for name, content in ((n, c[0]) for n, c in GUIDE_ATTACKS.items())})
    with caplog.at_level(logging.WARNING, logger="kb.app"):
        at = app()
    no_crash(at)
    logged = "\n".join(r.getMessage() for r in caplog.records if r.name == "kb.app")
    assert "evil-billion-laughs.yaml" in logged and "evil-regex-backreference.yaml" in logged  # the operator is told
    served = int(next(c.value for c in at.caption if c.value.endswith(" guides")).split()[0])
    assert 1 <= served < 20  # this knowledge base: GOOD, and the copies whose only fault was one signature
    at.text_area(key="paste").input(GOOD.read_text(encoding="utf-8").split("raw_errors:", 1)[1]).run()
    no_crash(at)
    assert any("Match" in s for s in shown(at))
    at = app(guide=GOOD_ID)
    no_crash(at)
    assert at.title[0].value.startswith("DeepSeek-V4.1 on SM120")


# Links and images in prose are refused by the schema now (tests/test_schema.py); what is left must still show as text.
EVIL = ":red[INJECTED] $\\LaTeX$ **bold** ~~struck~~ :material/home: :smile: `code` \\"


def _harmless_but_tricky(data: dict) -> None:
    """Everything here passes the schema; the page must still show it as text."""
    data["title"]["en"] = "Evil title " + EVIL
    data["summary"]["en"] = "Summary " + EVIL
    data["symptoms"][0]["en"] = EVIL
    data["env_checks"][0]["what"]["en"] = "Check " + EVIL
    data["steps"][0]["text"]["en"] = "Step " + EVIL
    data["steps"][0]["condition"] = {"en": "if " + EVIL}
    data["verification"][0]["text"]["en"] = "Verify " + EVIL
    data["tags"] = ["<script>alert(1)</script>", ":red[INJECTED]", "[x](https://evil.example)"]
    data["applies_to"]["hardware"]["gpus"] = [EVIL]
    data["applies_to"]["environment"] = [{"name": EVIL, "value": "x`\n\n![pixel](https://evil.example/p.png)"},
                                         {"name": "plain", "value": "a\n\n[click](https://evil.example/y)"}]
    data["references"][0]["title"] = "Title " + EVIL


def test_guide_text_is_shown_as_text(app_kb):
    app_kb({"evil-display": lambda gid: variant(gid, _harmless_but_tricky)})
    data = good_data()
    at = app(guide="evil-display")
    no_crash(at)
    assert at.title[0].value.startswith("Evil title")
    assert_inert(at, allowed_links={r["url"] for r in data["references"] if r.get("url")})
    at.checkbox(key=f"chk:evil-display:{data['steps'][0]['id']}").check().run()
    no_crash(at)
    assert_inert(at, allowed_links={r["url"] for r in data["references"] if r.get("url")})


@pytest.mark.parametrize("name", ["PNG image", "ELF shared library", "NUL-padded log", "invalid UTF-8", "empty file"])
def test_command_line_reads_any_file(tmp_path, capsys, name):
    from kb.cli import main
    path = tmp_path / "paste.bin"
    path.write_bytes(UPLOADS[name][0])
    data, expect = UPLOADS[name]
    # grep's convention: 0 a match, 1 none, 2 an error; a binary file is refused as the app refuses it.
    status = 0 if expect else (2 if data else 1)
    assert main(["match", str(path)]) == status
    assert main(["match", "--json", str(path)]) == status
    captured = capsys.readouterr()
    if expect:
        assert KNOWN_GUIDE in captured.out
    elif data:
        assert "is not a text file" in captured.err and captured.out == ""
