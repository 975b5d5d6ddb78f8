"""What identifies an error in a paste: signatures, their required context, and the
machine-readable conditions over an environment report that a context or a check can name."""
from __future__ import annotations

from typing import Literal

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from pydantic import Field, field_validator, model_validator

from schema.prose import ITEM_ID_PATTERN, L10n, _Model


def _check_specifier(value: str) -> str:
    try:
        SpecifierSet(value)
    except InvalidSpecifier as exc:
        raise ValueError(f"not a PEP 440 version specifier: {value!r} ({exc})") from None
    return value


class Condition(_Model):
    """A machine-readable test over an environment report (see kb/env/reports.py)."""

    kind: Literal["package_version", "package_present", "package_absent", "compute_capability", "cuda_version", "driver_version", "python_version"] = Field(description="What is tested: a package's version, its presence or absence, the GPUs' compute capability, the CUDA runtime, driver or Python version.")
    package: str | None = Field(None, description="The package, for the package_* kinds (pip's name, case-insensitive).", max_length=80)
    spec: str | None = Field(None, description="PEP 440 specifier the value must satisfy for the check to pass, e.g. '>=0.32' or '==12.0'.", max_length=200)

    @model_validator(mode="after")
    def _fields(self):
        if self.kind.startswith("package_") and not self.package:
            raise ValueError(f"kind {self.kind!r} needs 'package'")
        if self.kind in ("package_present", "package_absent"):
            if self.spec:
                raise ValueError(f"kind {self.kind!r} takes no 'spec'")
        elif not self.spec:
            raise ValueError(f"kind {self.kind!r} needs 'spec'")
        if self.spec:
            _check_specifier(self.spec)
        return self


class Context(_Model):
    """Evidence that must also be present for a signature to count as a match: a line of the
    paste, or a fact an environment report proves (in the paste or in the environment box)."""

    template: str | None = Field(None, description="Template (same syntax as Signature.template) that must match some line of the paste.", max_length=2_000)
    regex: str | None = Field(None, description="RE2 regular expression that must match some line of the paste; needs `anchor`.", max_length=2_000)
    anchor: str | None = Field(None, description="For `regex`: a literal substring every match contains, used to find candidates quickly.", max_length=300)
    module: str | None = Field(None, description="A Python package whose code the paste's traceback passes through, e.g. 'vllm' or 'sglang' (a frame under site-packages/vllm/ or a checkout's vllm/ folder).", pattern=r"^[A-Za-z_][A-Za-z0-9_]{1,40}$")
    fact: Condition | None = Field(None, description="An environment fact that satisfies this context as well as the pattern does, e.g. {kind: compute_capability, spec: '>=12.0,<12.2'}: a report proving it (in the paste or in the environment box) counts as this context found.")
    why: L10n | None = Field(None, description="Why this context separates this guide from the generic one.")

    @model_validator(mode="after")
    def _one_of(self):
        if self.module is not None:
            if self.template is not None or self.regex is not None or self.fact is not None:
                raise ValueError("'module' stands alone: give it without 'template', 'regex' or 'fact'")
            return self
        if self.fact is not None and self.template is None and self.regex is None:
            return self
        return _exactly_one_pattern(self)


class RaisedAt(_Model):
    """Where a signature's text is raised in the upstream source, and in which releases that text exists.

    `kb validate` renders the format string with varied argument values and requires the signature's
    template to match every rendering; the release range bounds the guide's version range for the
    package (kb/authoring/raised.py)."""

    package: str = Field(description="The package that prints the text, as pip spells it: 'vllm', 'torch', 'sglang', 'transformers', 'triton', 'flashinfer-python'; for a library with no pip package, its project name ('nccl').", min_length=1, max_length=80)
    file: str = Field(description="The file that holds the raising line, as a path in the package or its repository, e.g. 'vllm/config/model.py' or 'src/init.cc'.", min_length=1, max_length=300, pattern=r"^[A-Za-z0-9_.][^\s:]*$")
    format: str = Field(description="The format string exactly as written in the source, between its quotes (no f prefix, no quotes), adjacent literals joined; escapes such as \\n stay as written. A long message's format may stop where the template's text ends (after a whole literal piece), so that the range is that of the words the signature relies on.", min_length=1, max_length=2_000)
    style: Literal["f-string", "format", "percent", "printf", "literal"] = Field(description="How `format` is filled in: 'f-string' or 'format' (Python's {field!conv:spec}), 'percent' (Python's %-formatting), 'printf' (C's printf family), or 'literal' (no fields).")
    arg_types: dict[str, Literal["int", "float", "str", "path", "name", "version"]] = Field(default_factory=dict, description="What an argument is known to be, keyed by the field as written ('tp_size', 'self.max_model_len') or its 1-based position ('1'): 'int', 'float', 'str' (any text), 'path' (no spaces or quotes), 'name' (an identifier, dotted or not), 'version' (a release number such as '2.5.1+cu121'). Only where the source shows it; otherwise the argument may be anything.")
    prefix: str | None = Field(None, description="What is printed before the formatted text, when the template starts with it: the exception's name and colon ('ValueError: ') or a logger's tag ('NCCL WARN ').", min_length=1, max_length=200)
    versions: str = Field(description="PEP 440 specifier of the releases whose source raises this text: the same literal words and conversions (a renamed variable inside a field does not end the range), e.g. '>=0.6.4' or '>=2.1,<2.6'.", min_length=1, max_length=200)
    checked: str = Field(description="How the range was checked: the releases looked at, e.g. 'pypi:vllm==0.6.3 sdist (absent), pypi:vllm==0.6.4 and ==0.11.0 wheels (present)' or 'git tag --contains <commit> (v2.19.3 first)'.", min_length=8, max_length=500)

    _spec = field_validator("versions")(classmethod(lambda cls, v: _check_specifier(v)))


class Signature(_Model):
    """What identifies the error in pasted text.

    Template syntax: literal text with typed placeholders `{int}`, `{num}`, `{hex}`, `{path}`,
    `{word}`, `{ident}`, `{quoted}`, `{any}` (the rest of a line, lazily), `{version}`, `{size}`
    (an amount of memory such as '20.00 MiB'). A placeholder may be named, `{size:tried}`,
    `{int:rank}`: the value it captured is shown to the reader and tested by causes' `when`.
    Runs of white space match any white space; curly quotes match straight ones.
    """

    id: str = Field(description="Identifier unique within the guide, used in explanations.", pattern=ITEM_ID_PATTERN)
    template: str | None = Field(None, description="Template of an error line (or a few consecutive lines), e.g. 'No common block size for {int}'.", max_length=2_000)
    regex: str | None = Field(None, description="RE2 regular expression, for what a template cannot say; needs `anchor`.", max_length=2_000)
    anchor: str | None = Field(None, description="For `regex`: a literal substring every match contains (at least 8 characters).", max_length=300)
    context: list[Context] = Field(default_factory=list, description="Further evidence that must all be present for a confident match; without it the guide is only offered as similar.")
    captures: list[str] = Field(default_factory=list, max_length=20, description="Templates with named placeholders that read values near the matched lines when they are there (e.g. '{size:free} is free'); they never decide whether the signature matches.")
    wrapper: bool = Field(False, description="True when this message only wraps another error (e.g. 'WorkerProc initialization failed'): a match on the wrapped error ranks above it.")
    raised_at: RaisedAt | None = Field(None, description="Where the text is raised upstream: package, file, the format string as written, and the releases that contain it. `kb validate` checks that the template matches every rendering of that format string and that the guide's version range for the package lies within the release range.")

    @model_validator(mode="after")
    def _one_of(self):
        return _exactly_one_pattern(self)


def _exactly_one_pattern(obj):
    if (obj.template is None) == (obj.regex is None):
        raise ValueError("give exactly one of 'template' or 'regex'")
    if obj.template is not None and len(obj.template.strip()) == 0:
        raise ValueError("'template' is empty: it would match everything")
    if obj.regex is not None and not obj.anchor:
        raise ValueError("'regex' needs an 'anchor': a literal substring every match contains")
    if obj.template is None and obj.anchor is not None and len(obj.anchor.strip()) < 8:
        raise ValueError("'anchor' must be at least 8 characters, or it finds too many candidates")
    if obj.template is not None and obj.anchor is not None:
        raise ValueError("'anchor' goes with 'regex' only; a template's anchor is derived from it")
    return obj
