"""The loader's messages on broken guides: file, line and field, every problem at once."""
import shutil
from pathlib import Path

import pytest

from kb.guides.load import load_guides
from tests.conftest import ROOT

GOOD = ROOT / "guides" / "vllm" / "vllm-dsv41-sm120-no-common-block-size.yaml"


@pytest.fixture
def kb_dir(tmp_path):
    (tmp_path / "vllm").mkdir()
    shutil.copy(GOOD, tmp_path / "vllm" / GOOD.name)
    return tmp_path


def write(kb_dir: Path, name: str, text: str) -> None:
    (kb_dir / "vllm" / name).write_text(text, encoding="utf-8")


def variant(old: str, new: str) -> str:
    text = GOOD.read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new, 1)


def problems_for(kb_dir):
    loaded = load_guides(kb_dir)
    return loaded, [str(p) for p in loaded.problems]


def test_wrong_type_names_file_line_and_field(kb_dir):
    write(kb_dir, "broken-status.yaml", variant("id: vllm-dsv41-sm120-no-common-block-size", "id: broken-status").replace("status: unresolved", "status: maybe"))
    loaded, probs = problems_for(kb_dir)
    line = next(i for i, text in enumerate((kb_dir / "vllm" / "broken-status.yaml").read_text().splitlines(), 1) if text.startswith("status:"))
    assert any(p.startswith(f"vllm/broken-status.yaml:{line}: status:") for p in probs), probs
    assert [g.id for g in loaded.guides] == [GOOD.stem]  # the good guide is still served


def test_missing_field_and_unknown_field(kb_dir):
    text = variant("id: vllm-dsv41-sm120-no-common-block-size", "id: broken-fields").replace("status: unresolved\n", "stauts: unresolved\n")
    write(kb_dir, "broken-fields.yaml", text)
    _, probs = problems_for(kb_dir)
    assert any("broken-fields.yaml" in p and "status: Field required" in p for p in probs), probs
    assert any("broken-fields.yaml" in p and "stauts: Extra inputs are not permitted" in p for p in probs), probs


def test_yaml_syntax_error_has_a_line(kb_dir):
    write(kb_dir, "broken-syntax.yaml", "id: broken-syntax\ntitle: [unclosed\n")
    _, probs = problems_for(kb_dir)
    assert any(p.startswith("vllm/broken-syntax.yaml:") and ":" in p.split("yaml", 1)[1] for p in probs), probs


def test_all_broken_guides_reported_at_once(kb_dir):
    write(kb_dir, "a-broken.yaml", "id: a-broken\n")
    write(kb_dir, "b-broken.yaml", "- not a mapping\n")
    write(kb_dir, "c-broken.yaml", "id: c\nid: c\n")
    _, probs = problems_for(kb_dir)
    for name in ("a-broken", "b-broken", "c-broken"):
        assert any(name in p for p in probs), (name, probs)
    assert any("duplicate key 'id'" in p for p in probs)


@pytest.mark.parametrize("text, message", [
    ("id: !!python/object/apply:os.system ['echo hi']\n", "tags that build objects"),
    ("a: &x [1, 2]\nb: *x\n", "aliases are not allowed"),
    ("\xff\xfe", "not UTF-8"),
])
def test_unsafe_yaml_refused(kb_dir, text, message):
    path = kb_dir / "vllm" / "evil.yaml"
    path.write_bytes(text.encode("latin-1") if text.startswith("\xff") else text.encode())
    _, probs = problems_for(kb_dir)
    assert any("evil.yaml" in p and message in p for p in probs), probs


def test_id_must_equal_file_name_and_related_must_exist(kb_dir):
    write(kb_dir, "other-name.yaml", variant("id: vllm-dsv41-sm120-no-common-block-size", "id: some-other-id"))
    _, probs = problems_for(kb_dir)
    assert any("differs from the file name" in p for p in probs)
    assert any("unknown guide id 'vllm-dsv41-adaptive-verification-illegal-memory-access'" in p for p in probs)


def test_html_in_prose_and_bad_links_refused(kb_dir):
    text = variant("id: vllm-dsv41-sm120-no-common-block-size", "id: evil-prose")
    text = text.replace("url: https://github.com/vllm-project/vllm/issues/59203", "url: javascript:alert(1)")
    text = text.replace('  en: "DeepSeek-V4.1 on SM120', '  en: "<script>alert(1)</script> DeepSeek-V4.1 on SM120', 1)
    write(kb_dir, "evil-prose.yaml", text)
    _, probs = problems_for(kb_dir)
    assert any("evil-prose.yaml" in p and "references.0.url" in p and "https://" in p for p in probs), probs
    assert any("evil-prose.yaml" in p and "title" in p and "raw HTML" in p for p in probs), probs
