"""Chinese prose has no stray spaces: `kb validate` refuses a space between two Chinese
characters in a guide's own text, the defect a folded YAML text makes where a line break
falls between two of them, and leaves verbatim copies (raw errors, quotes, titles) alone.
It also says how many references have no title."""
from __future__ import annotations

from pathlib import Path

import yaml

from kb.authoring.typography import stray_spaces
from kb.cli import main
from tests.test_hostile import GOOD, _set, kb_with, variant


def validate(root: Path, capsys) -> tuple[int, str]:
    code = main(["validate", str(root)])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_a_line_break_between_two_chinese_characters_in_a_folded_text_is_refused(tmp_path, capsys):
    # Written the way an editor wraps a folded text: YAML joins the two lines with a space.
    text = GOOD.read_text(encoding="utf-8").replace(
        "  zh: >-\n    在 SM120 GPU",
        "  zh: >-\n    在 SM120 GPU（RTX PRO 6000 Blackwell）上部署时\n    崩溃。在 SM120 GPU", 1)
    assert text != GOOD.read_text(encoding="utf-8")
    assert "部署时 崩溃" in yaml.safe_load(text)["summary"]["zh"]
    root = kb_with(tmp_path, {"folded-zh": text.replace(f"id: {GOOD.stem}", "id: folded-zh", 1)})
    code, out = validate(root, capsys)
    assert code == 1
    assert any("folded-zh.yaml" in line and "summary.zh" in line and "Chinese characters" in line
               for line in out.splitlines()), out


def test_a_space_inside_a_chinese_sentence_is_refused(tmp_path, capsys):
    root = kb_with(tmp_path, {"spaced-zh": lambda gid: variant(gid, _set("steps.0.text.zh", "先在当前 nightly 上复现， 保存完整报错。"))})
    code, out = validate(root, capsys)
    assert code == 1
    assert any("spaced-zh.yaml" in line and "steps.0.text.zh" in line for line in out.splitlines()), out


def test_spaces_beside_latin_text_and_in_verbatim_copies_are_kept(tmp_path, capsys):
    def change(data):
        data["steps"][0]["text"]["zh"] = "在 SM120 上运行 `vllm serve`，然后检查 U+FFFD。"
        data["raw_errors"][0]["note"] = "报告 原文"  # a note about the source, not prose shown as the guide's
        data["causes"][1]["evidence"][0]["quote"] = "调试栈确认 失败路径为 deepseek_v41/attention.py::forward"
    root = kb_with(tmp_path, {"latin-ok": lambda gid: variant(gid, change)})
    code, out = validate(root, capsys)
    assert not any("Chinese characters" in line for line in out.splitlines()), out


def test_where_a_space_is_stray():
    assert stray_spaces("中文 中文") and stray_spaces("问题： 既没有") and stray_spaces("（见下） 然后")
    assert not stray_spaces("在 SM120 上") and not stray_spaces("用 `pip` 安装") and not stray_spaces("中文\n中文")


def test_validate_counts_the_references_without_a_title(tmp_path, capsys):
    data = yaml.safe_load(GOOD.read_text(encoding="utf-8"))
    untitled = sum(1 for r in data["references"] if not r.get("title"))
    root = kb_with(tmp_path, {"no-title": lambda gid: variant(gid, _set("references.0.title", None))})
    code, out = validate(root, capsys)
    # The reference of the first guide, plus the same ones untitled in both files.
    assert f"{2 * untitled + (1 if data['references'][0].get('title') else 0)} references without a title." in out, out
