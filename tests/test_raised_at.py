"""Signatures taken from the source: format strings become templates that match every rendering,
and `kb validate` refuses a template that drifted from the format string it claims."""
import copy
import subprocess
import sys

import pytest
import re2
import yaml

from kb import ROOT
from kb.authoring.formats import FormatError, template_from_format
from kb.authoring.raised import format_mismatch, raised_problems, within
from kb.authoring.renderings import renderings
from kb.engine.signature import compile_template, normalise_text
from kb.guides.load import GUIDES_DIR, guide_files
from schema.models import Guide

# (format as written in the source, style, argument types, expected template, an unrelated line it must not match)
CASES = [
    ("Total number of attention heads ({total_num_attention_heads}) must be divisible by tensor parallel size ({tensor_parallel_size}).",
     "f-string", {}, "Total number of attention heads ({any}) must be divisible by tensor parallel size ({any}).",
     "Total number of attention heads must be even"),
    ("Total number of attention heads ({total_num_attention_heads}) must be divisible by tensor parallel size ({tensor_parallel_size}).",
     "f-string", {"total_num_attention_heads": "int", "2": "int"},
     "Total number of attention heads ({int}) must be divisible by tensor parallel size ({int}).",
     "Total number of attention heads (x) must be divisible by tensor parallel size (y)."),
    ("Unsupported head_dim: {head_dim:d}, dtype {dtype!r}, {ratio:.2f} of {frac:.1%}", "format", {},
     "Unsupported head_dim: {int}, dtype {any}, {num} of {num}%", "Unsupported head_dim: none"),
    ("Unknown model {name!r} in {{registry}}", "f-string", {"name": "str"}, "Unknown model {quoted} in {{registry}}",
     "Unknown model foo in {registry}"),
    ("{x=} is not a valid block size", "f-string", {}, "x={any} is not a valid block size", "x is not a valid block size"),
    ("CUDA out of memory. Tried to allocate %s (GPU %d; %.2f GiB total)", "percent", {},
     "CUDA out of memory. Tried to allocate {any} (GPU {int}; {num} GiB total)", "CUDA out of memory."),
    ("value %(v)r is not in %(choices)s: %-8s|", "percent", {}, "value {any} is not in {any}: {any}|", "value is not in the list"),
    ("Cuda failure %d '%s'", "printf", {}, "Cuda failure {int} '{any}'", "Cuda failure 'out of memory'"),
    ("NET/IB : Got completion from peer %s with status=%d opcode=%d len=%zu vendor err %u (%s)%s%s%s%s", "printf", {},
     "NET/IB : Got completion from peer {any} with status={int} opcode={int} len={int} vendor err {int} ({any}){any}{any}{any}{any}",
     "NET/IB : Got completion from peer 10.0.0.1 with status=timeout"),
    ("alignment %5d at %p (%#x)", "printf", {}, "alignment {any} at {word} ({word})", "alignment at nowhere"),
    ("line one\\nline two: {value}", "format", {"value": "path"}, "line one\nline two: {path}", "line one line three"),
    ("no fields in this message at all", "literal", {}, "no fields in this message at all", "no fields in that message"),
]


@pytest.mark.parametrize("fmt, style, types, expected, unrelated", CASES)
def test_template_from_format_matches_every_rendering_and_no_neighbour(fmt, style, types, expected, unrelated):
    template = template_from_format(fmt, style, types)
    assert template == expected
    pattern = re2.compile(compile_template(template, allow_generic=True).pattern)
    samples = renderings(fmt, style, types)
    assert len(samples) >= 2 or "{" not in template
    for text in samples:
        assert pattern.search(normalise_text(text)), text
    assert pattern.search(unrelated) is None


def test_renderings_vary_every_field():
    samples = renderings("sizes {a} and {b}", "f-string")
    firsts = {s.split()[1] for s in samples}
    assert len(firsts) > 10 and "two" in " ".join(samples) and "'a'" in " ".join(samples)


def test_a_tighter_template_misses_a_rendering():
    # {int} where the argument may print anything: some rendering (a word, an empty string) escapes it.
    pattern = re2.compile(compile_template("attention heads ({int}) must be divisible").pattern)
    misses = [t for t in renderings("attention heads ({n}) must be divisible", "f-string") if not pattern.search(t)]
    assert misses


@pytest.mark.parametrize("fmt, style", [("open {field", "f-string"), ("stray } here", "format"), ("100%! done %s", "percent")])
def test_unreadable_formats_are_refused(fmt, style):
    with pytest.raises(FormatError):
        renderings(fmt, style)


def test_cli_prints_the_template_and_refuses_a_format_without_anchor():
    def run(*a):
        return subprocess.run([sys.executable, "-m", "kb", "template-from-format", *a], cwd=ROOT, capture_output=True, text=True)
    ok = run("No common block size for {block_size}", "--type", "block_size=int")
    assert ok.returncode == 0 and ok.stdout.strip() == "No common block size for {int}"
    bad = run("%s: %d", "--style", "printf")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "literal run" in bad.stderr


@pytest.mark.parametrize("spec, unions, inside", [
    (">=0.8,<0.11", [">=0.6.4"], True),
    (">=0.6", [">=0.6.4"], False),
    ("", [">=0.6.4"], False),
    (">=2.1,<2.6", [">=2.0,<2.4", ">=2.4"], True),
    (">=2.1,<2.6", [">=2.0,<2.4", ">=2.5"], False),
    ("==0.11.0", [">=0.10,<0.12"], True),
])
def test_version_range_within_the_release_ranges(spec, unions, inside):
    assert within(spec, unions) is inside


def _guides_with_raised_at():
    for path in guide_files(GUIDES_DIR):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if any("raised_at" in s for s in data["signatures"]):
            yield path, data


def test_at_least_25_signatures_record_where_they_are_raised():
    n = sum(1 for _, d in _guides_with_raised_at() for s in d["signatures"] if "raised_at" in s)
    assert n >= 25


def test_a_drifted_template_fails_validation():
    # A real guide, its template edited as if upstream had reworded the message: validate must say so.
    path, data = next(_guides_with_raised_at())
    g = Guide.model_validate(data)
    assert raised_problems(g, str(path)) == []
    drifted = copy.deepcopy(data)
    sig = next(s for s in drifted["signatures"] if "raised_at" in s)
    sig["raised_at"]["format"] = "Reworded upstream: " + sig["raised_at"]["format"][::-1]
    problems = raised_problems(Guide.model_validate(drifted), str(path))
    assert any(p.field.endswith(".raised_at") and "does not match" in p.message for p in problems)


def test_a_template_typed_tighter_than_its_format_fails():
    path, data = next(_guides_with_raised_at())
    drifted = copy.deepcopy(data)
    sig = next(s for s in drifted["signatures"] if "raised_at" in s)
    sig["raised_at"] = {**sig["raised_at"], "format": "the value {v} was refused here", "style": "f-string", "arg_types": {}, "prefix": None}
    sig["template"] = "the value {int} was refused here"
    s = Guide.model_validate(drifted).signatures[[x["id"] for x in drifted["signatures"]].index(sig["id"])]
    assert "does not match" in (format_mismatch(s) or "")
    sig["template"] = "the value {any} was refused here"
    s = Guide.model_validate(drifted).signatures[[x["id"] for x in drifted["signatures"]].index(sig["id"])]
    assert format_mismatch(s) is None


def test_a_guide_range_wider_than_the_release_range_fails():
    path, data = next(_guides_with_raised_at())
    wide = copy.deepcopy(data)
    sig = next(s for s in wide["signatures"] if "raised_at" in s)
    package = sig["raised_at"]["package"]
    wide["applies_to"]["components"] = [c for c in wide["applies_to"]["components"] if c["name"] != package]
    problems = raised_problems(Guide.model_validate(wide), str(path))
    assert any(p.field == "applies_to.components" and package in p.message for p in problems)
    wide["applies_to"]["components"].append({"name": package, "versions": "<0.0.1"})
    for s in wide["signatures"]:
        if "raised_at" in s and s["raised_at"]["package"] == package:
            s["raised_at"]["versions"] = ">=0.0.2"
    problems = raised_problems(Guide.model_validate(wide), str(path))
    assert any("do not contain" in p.message for p in problems)
