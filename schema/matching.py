"""What identifies an error in a paste: signatures, their required context, and the
machine-readable conditions over an environment report that a context or a check can name."""
from __future__ import annotations

from typing import Literal

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from pydantic import Field, model_validator

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
