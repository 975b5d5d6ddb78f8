"""The guide page's "Raw error" box shows a guide's first raw error: `kb validate` refuses one
that reads like an issue title (a tracker's tag, a note calling it the title, the source's own
recorded title, the reporter's sentence, no error word), and only the first one."""
from __future__ import annotations

import pytest

from kb.authoring.raw_title import STILL_TITLES, title_reason
from kb.cli import main
from tests.test_hostile import kb_with, variant

PRINTED = "ValueError: SM120 sparse-MLA has no decode kernel for this shape: num_tokens=8,"


def _first(raw: dict):
    def change(data):
        data["raw_errors"].insert(0, raw)
    return change


def _with_title(raw: dict, ref: str, title: str):
    def change(data):
        data["raw_errors"].insert(0, raw)
        data["references"].append({"ref": ref, "title": title})
    return change


TITLES = {
    "a tracker's tag": _first({"source": "vllm-project/vllm#59203", "text": f"[Bug]: {PRINTED}"}),
    "a usage tag": _first({"source": "vllm-project/vllm#59203", "text": f"[Usage]: {PRINTED}"}),
    "the note says title": _first({"source": "vllm-project/vllm#59203", "note": "Issue title only.", "text": PRINTED}),
    "the source's recorded title": _with_title({"source": "vllm-project/vllm#60001", "text": PRINTED},
                                               "vllm-project/vllm#60001", PRINTED),
    "the reporter's sentence": _first({"source": "vllm-project/vllm#59203",
                                       "text": "DeepSeek-V4.1 on my RTX 5090: I get no decode kernel for this shape"}),
    "no error word": _first({"source": "vllm-project/vllm#59203", "text": "DeepSeek-V4.1-Flash on SM120 with vLLM 0.21"}),
}


def _validate(root, capsys) -> tuple[int, str]:
    code = main(["validate", str(root)])
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.mark.parametrize("name", list(TITLES))
def test_validate_refuses_a_title_as_the_first_raw_error(tmp_path, capsys, name):
    root = kb_with(tmp_path, {"titled": lambda gid: variant(gid, TITLES[name])})
    code, out = _validate(root, capsys)
    assert code == 1
    assert any("titled.yaml" in line and "raw_errors.0" in line and "reads like an issue title" in line
               for line in out.splitlines()), out


def test_a_title_after_a_printed_error_is_not_refused(tmp_path, capsys):
    def later(data):
        data["raw_errors"].append({"source": "vllm-project/vllm#59203", "note": "Issue title.", "text": f"[Bug]: {PRINTED}"})
    root = kb_with(tmp_path, {"later": lambda gid: variant(gid, later)})
    _, out = _validate(root, capsys)
    assert not any("later.yaml" in line and "issue title" in line for line in out.splitlines()), out


def test_a_printed_first_raw_error_is_not_refused(tmp_path, capsys):
    root = kb_with(tmp_path, {})
    code, out = _validate(root, capsys)
    assert "issue title" not in out, out


def test_the_guides_still_waiting_for_a_printed_error_are_still_titles(index):
    # The list may only shrink: an entry whose guide was fixed, or that names no guide, is stale.
    for gid in STILL_TITLES:
        assert gid in index.guides, gid
        assert title_reason(index.guides[gid]) is not None, f"{gid} reads as output now: drop it from STILL_TITLES"
