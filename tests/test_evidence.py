"""Every claim traceable to its source: validation refuses a cause without evidence, a
`confirmed` cause without a quote by a maintainer, a merged fix or a reproduction, and a
cause citing a reference the guide does not list."""
from __future__ import annotations

import pytest

from kb.authoring.evidence import evidence_problems
from schema.models import Guide


def _with_cause(index, **cause) -> Guide:
    g = index.guides["cuda-oom"]
    data = g.model_dump(mode="json", exclude_none=True)
    data["causes"] = [{"text": {"en": "x", "zh": "x"}, **cause}]
    return Guide.model_validate(data)


@pytest.mark.parametrize(("cause", "message"), [
    ({"confidence": "likely", "evidence": []}, "needs evidence"),
    ({"confidence": "confirmed", "evidence": ["pytorch/pytorch#16417"]}, "needs a verbatim quote"),
    ({"confidence": "confirmed", "evidence": [{"ref": "pytorch/pytorch#16417", "quote": "It worked after lowering the batch", "by": "commenter"}]},
     "needs a verbatim quote"),
    ({"confidence": "likely", "evidence": ["someone/else#1"]}, "not in the guide's references"),
])
def test_weak_evidence_is_refused(index, cause, message):
    problems = evidence_problems(_with_cause(index, **cause), "x.yaml")
    assert any(message in p.message for p in problems), problems


def test_a_maintainers_quote_confirms(index):
    cause = {"confidence": "confirmed", "evidence": [{"ref": "pytorch/pytorch#16417", "quote": "Reduce the batch size and retry.", "by": "maintainer"}]}
    assert evidence_problems(_with_cause(index, **cause), "x.yaml") == []


def test_a_quote_needs_a_speaker():
    from pydantic import ValidationError

    from schema.models import Evidence
    with pytest.raises(ValidationError, match="needs 'by'"):
        Evidence(ref="pytorch/pytorch#16417", quote="a quote without a speaker")


def test_every_guide_meets_the_evidence_rules(index):
    problems = [p for g in index.guides.values() for p in evidence_problems(g, g.id)]
    assert not problems, problems[:10]


def test_a_counter_example_never_confirms(index):
    # A maintainer's words against the cause are kept for the reader, not counted as support.
    cause = {"confidence": "confirmed", "evidence": [{"ref": "pytorch/pytorch#16417", "quote": "This is not caused by the batch size.",
                                                      "by": "maintainer", "role": "counter-example"}]}
    problems = evidence_problems(_with_cause(index, **cause), "x.yaml")
    assert any("needs a verbatim quote" in p.message for p in problems), problems


def test_a_role_is_one_of_three_and_needs_a_quote():
    from pydantic import ValidationError

    from schema.models import Evidence
    assert Evidence(ref="a/b#1", quote="the fix worked for me", by="reporter", role="fix").role == "fix"
    with pytest.raises(ValidationError):
        Evidence(ref="a/b#1", quote="the fix worked for me", by="reporter", role="proof")
    with pytest.raises(ValidationError, match="give the quote"):
        Evidence(ref="a/b#1", role="cause")


def test_a_release_on_pypi_is_a_reference():
    from schema.models import Evidence
    assert Evidence(ref="pypi:transformers==4.50.3:transformers/training_args.py", quote="evaluation_strategy: Union[",
                    by="source").ref.startswith("pypi:")
    assert Evidence(ref="pypi:vllm==0.13.0").ref == "pypi:vllm==0.13.0"


# The watchdog case of tests/data/cases/C.jsonl (C-watchdog-instructlab-1ms) with a later collective.
WATCHDOG_1580 = ("terminate called after throwing an instance of 'c10::DistBackendError'\n  what():  [PG ID 0 PG GUID "
                 "0(default_pg) Rank 3] Process group watchdog thread terminated with exception: [Rank 3] Watchdog caught "
                 "collective operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
                 "Timeout(ms)=600000) ran for 600090 milliseconds before timing out.")


def test_a_cause_the_numbers_argue_against_is_not_stated_as_a_fact(index):
    from kb.diagnosis import diagnose
    from tests.test_app import app, no_crash, texts
    r = diagnose(index, WATCHDOG_1580).result("nccl-watchdog-collective-timeout")
    against = [c for c in r.causes if c.fits is False]
    assert against, r.causes
    for c in against:
        for lang in ("en", "zh"):
            assert "1580" in c.says[lang] and "seq <= 1" in c.says[lang], c.says[lang]
        assert "very first collective" not in c.says["en"]
    at = app()
    at.text_area(key="paste").input(WATCHDOG_1580).run()
    no_crash(at)
    shown = texts(at)
    assert "The very first collective" not in shown and "which this cause does not fit" in shown
