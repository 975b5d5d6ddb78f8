import pytest
import re2

from kb.engine.signature import TemplateError, compile_regex, compile_template, propose_template


@pytest.mark.parametrize("template, hit, miss", [
    ("No common block size for {int}", "RuntimeError: Worker failed with error 'No common block size for 64", "No common block size for x"),
    ("Tried to allocate {num} {word}", "Tried to allocate 20.00 MiB", "Tried to allocate MiB"),
    ("compute capability of at least 8.0", "GPU has compute capability of at least 8.0.", "compute capability of at least 8.6"),
    ("undefined symbol: {ident}", "flash_attn_2_cuda.so: undefined symbol: _ZN3c105ErrorC2E", "undefined symbol:"),
    ("version `GLIBCXX_{version}' not found", "version `GLIBCXX_3.4.30' not found (required by x)", "version `GLIBCXX_' found"),
    ("error with {quoted} here", 'error with "abc" here', "error with abc here"),
])
def test_template_matches_variants_not_neighbours(template, hit, miss):
    c = compile_template(template)
    assert re2.search(c.pattern, hit)
    assert not re2.search(c.pattern, miss)


def test_whitespace_and_curly_quotes_are_loose():
    c = compile_template("Worker failed with error \u2018No common")
    assert re2.search(c.pattern, "Worker  failed\twith error 'No common")


def test_multiline_template():
    c = compile_template("No common block size for {int}\n(FLASHINFER_MLA_SPARSE_DSV41")
    assert c.nlines == 2
    assert re2.search(c.pattern, "No common block size for 64\n   (FLASHINFER_MLA_SPARSE_DSV41: [128])")


@pytest.mark.parametrize("bad", ["{int}", "   ", "{int} {any}", "short {int}", "{nosuch} placeholder text", "stray } brace here"])
def test_bad_templates_are_refused(bad):
    with pytest.raises(TemplateError):
        compile_template(bad)


@pytest.mark.parametrize("regex, anchor", [(".*", "anything here"), ("(a|)", "aaaaaaaaaa"), ("x++", "xxxxxxxxxx"), ("ok", "short")])
def test_bad_regexes_are_refused(regex, anchor):
    with pytest.raises(TemplateError):
        compile_regex(regex, anchor)


def test_catastrophic_regex_runs_in_linear_time():
    c = compile_regex(r"(a+)+b" + "NCCL WARN", "NCCL WARN")
    assert re2.search(c.pattern, "a" * 200_000) is None  # RE2: no backtracking


def test_proposed_template_replaces_volatile_values():
    t = propose_template('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.19 GiB at /home/alice/run.py')
    assert t == "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {num} MiB. GPU {int} has a total capacity of {num} GiB at {path}"
    compile_template(t)


def test_escaped_braces_are_literal():
    # '{{' and '}}' are a literal brace (the refusal of a stray one said to write them so, and then refused them too).
    c = compile_template("expected {{'a': {int}}} here")
    assert re2.search(c.pattern, "expected {'a': 1} here")
    assert not re2.search(c.pattern, "expected 'a': 1 here")
