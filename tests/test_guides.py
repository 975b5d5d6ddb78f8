"""The knowledge base as a whole: valid, self-testing, bilingual, and no guide stealing another's error."""
import json

import pytest

from kb.authoring.validate import validate
from kb.engine.match import match
from kb.engine.tiers import ADDRESSING, SCOPE_TIER
from kb.guides.load import GUIDES_DIR, guide_files
from tests.conftest import DATA

FILES = guide_files(GUIDES_DIR)


def test_knowledge_base_validates(index):
    problems = validate(index)
    assert not problems, "\n".join(map(str, problems))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_schema_line_first(path):
    assert path.read_text(encoding="utf-8").startswith("# yaml-language-server: $schema=../../schema/guide.schema.json\n")


def _raw_cases():
    from kb.guides.load import load_guides
    for g in load_guides().guides:
        for i, raw in enumerate(g.raw_errors):
            yield pytest.param(g.id, SCOPE_TIER[g.scope].name, raw.pasted(), id=f"{g.id}-{i}")


@pytest.mark.parametrize("gid, tier, text", list(_raw_cases()))
def test_no_raw_error_is_matched_first_by_another_guide(index, gid, tier, text):
    # First, in the tier of the guide's scope: "match" for a specific guide, "triage" for a class guide.
    res = match(index, text)
    assert res.matches, "nothing matched"
    first = res.matches[0]
    assert (first.guide_id, first.confidence) == (gid, tier), f"first is {first.guide_id} ({first.confidence})"


def _prose(obj, path=""):
    from pydantic import BaseModel

    from schema.models import L10n
    if isinstance(obj, L10n):
        yield path, obj
    elif isinstance(obj, BaseModel):
        for name in type(obj).model_fields:
            yield from _prose(getattr(obj, name), f"{path}.{name}")
    elif isinstance(obj, (list, tuple)):
        for i, x in enumerate(obj):
            yield from _prose(x, f"{path}[{i}]")


def test_every_prose_field_in_english_and_chinese(loaded):
    missing = [f"{g.id}{p}" for g in loaded.guides for p, t in _prose(g) if not (t.en and t.zh)]
    assert not missing, missing


def test_at_least_50_guides(loaded):
    assert len(loaded.guides) >= 50


def test_every_corpus_family_is_covered(loaded):
    """Each family's reports, pasted as they are, land on a guide that addresses them: with
    confidence, or with a class guide's triage procedure."""
    families = json.loads((DATA / "corpus" / "families.json").read_text())["families"]
    uncovered = []
    from kb.engine.index import load_index
    idx = load_index()
    for fam in families:
        if not any(m.confidence in ADDRESSING for r in fam["reports"] for m in match(idx, r["raw"]).matches):
            uncovered.append(fam["id"])
    assert not uncovered, uncovered
