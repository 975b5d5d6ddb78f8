"""The README says each thing once, and its figures are what the code measures: every table
of figures is a generated block that matches its source (kb/authoring/readme_blocks.py)."""
from __future__ import annotations

import json
import re
import shutil

import pytest

from kb.authoring import bench_tables, readme_blocks
from kb.authoring.readme_blocks import FILES, BlockError, block_body, names_in, render, rewrite
from kb.evaluation import readme_tables  # noqa: F401 - registers the evaluation tables
from tests.conftest import ROOT

README = ROOT / "README.md"
# The security issue's branch removes one of the two identical "Security" copies; until then
# the copies must at least say the same thing.
OWNED_ELSEWHERE = ("Security", "Configuration and deployment")
FIGURE = re.compile(r"\d[\d,.]*\s?(?:%|ms\b|s\b|MB\b|GB\b|×)")


def sections(text: str) -> list[tuple[str, str]]:
    parts = re.split(r"(?m)^## ", text)[1:]
    return [(p.split("\n", 1)[0].strip(), p) for p in parts]


BLOCKS_IN_FILES = [(path, name) for path in FILES for name in names_in(path.read_text(encoding="utf-8"))]


@pytest.mark.parametrize("path, name", BLOCKS_IN_FILES, ids=[f"{p.relative_to(ROOT)}:{n}" for p, n in BLOCKS_IN_FILES])
def test_every_block_says_what_its_source_says(path, name):
    body = block_body(path.read_text(encoding="utf-8"), name)
    assert body == render(name), f"{path.relative_to(ROOT)}: block {name!r} is stale; run: .venv/bin/kb generate"


def test_every_registered_table_is_in_a_readme():
    used = {name for _, name in BLOCKS_IN_FILES}
    assert set(readme_blocks.BLOCKS) <= used, set(readme_blocks.BLOCKS) - used


def test_readme_has_each_section_once():
    found = sections(README.read_text(encoding="utf-8"))
    titles = [t for t, _ in found]
    for title in set(titles):
        copies = [body for t, body in found if t == title]
        if len(copies) > 1:
            assert title in OWNED_ELSEWHERE and len(set(copies)) == 1, f"section {title!r} appears {len(copies)} times"
    assert titles.count("Evaluation and benchmark") == 1 and titles.count("Command line") == 1


def test_no_figure_outside_the_generated_blocks():
    text = README.read_text(encoding="utf-8")
    text = re.sub(r"<!-- generated:([a-z0-9-]+):start -->.*?<!-- generated:\1:end -->", "", text, flags=re.S)
    text = re.sub(r"<!-- cli-help:start -->.*?<!-- cli-help:end -->", "", text, flags=re.S)
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    for title, body in sections(text):
        if title in OWNED_ELSEWHERE:
            continue
        assert not FIGURE.findall(body), (title, FIGURE.findall(body))


def test_a_table_follows_its_result_file(tmp_path, monkeypatch):
    shutil.copytree(readme_blocks.RESULTS, tmp_path, dirs_exist_ok=True)
    monkeypatch.setattr(readme_blocks, "RESULTS", tmp_path)
    monkeypatch.setattr(bench_tables, "RESULTS", tmp_path)
    before = render("bench-click")
    data = json.loads((tmp_path / "click.json").read_text())
    size = next(iter(data["result"]["bases"]["real"]["sizes"].values()))
    size["first_median_ms"] = 123456.0
    (tmp_path / "click.json").write_text(json.dumps(data))
    after = render("bench-click")
    assert after != before and "123,456 ms" in after
    (tmp_path / "click.json").unlink()
    with pytest.raises(BlockError, match="click.json is missing"):
        render("bench-click")


def test_an_unknown_or_broken_block_is_an_error():
    with pytest.raises(BlockError, match="no renderer for block 'nope'"):
        rewrite("<!-- generated:nope:start -->\n<!-- generated:nope:end -->\n")
    with pytest.raises(BlockError, match="never ends"):
        rewrite("<!-- generated:eval-dev:start -->\n")
    with pytest.raises(BlockError, match="ends where it did not start"):
        names_in("<!-- generated:a:start -->\n<!-- generated:b:end -->\n")
    assert rewrite("text\n<!-- generated:eval-dev:start -->\nold\n<!-- generated:eval-dev:end -->\n").count("top-3") == 1  # the one table, once
