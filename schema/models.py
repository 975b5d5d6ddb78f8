"""The guide format.

Every model forbids unknown keys and documents each field, so that the generated
JSON Schema (schema/guide.schema.json) is the reference an author's editor shows.
Checks that need the whole knowledge base (ids against file names, related ids,
self-tests) live in kb/authoring/validate.py; checks on one value live here.
"""
from __future__ import annotations

import datetime as dt
import re
from typing import Literal

from markdown_it import MarkdownIt
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

LANGS = ("en", "zh")
ID_PATTERN = r"^[a-z0-9][a-z0-9-]{1,79}$"
ITEM_ID_PATTERN = r"^[a-z0-9][a-z0-9-]{0,39}$"
# owner/repo#123 for issues and PRs; seed:<file> for the two founding articles.
REF_PATTERN = r"^([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+#[0-9]+|seed:[A-Za-z0-9_.-]+|[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+@[0-9a-f]{7,40}:[^\s]+|doc:[^\s]+)$"
# Raw HTML in prose would be shown verbatim (the app never renders HTML), but a tag
# in a guide is almost always a mistake or an attack, so it is refused outright.
_MD = MarkdownIt("commonmark")
# Markdown makes HTML only from "<" before a letter, "/", "!" or "?", and links only from
# "](", a "]:" definition or an autolink "<scheme:": text without these is plain.
_MARKUP_HINT = re.compile(r"<[A-Za-z/!?]|\]\(|\]:")
MAX_MARKUP = 200
_MD.validateLink = lambda url: True  # see every link as a renderer would, then judge its scheme here


def _markdown_problem(text: str) -> str | None:
    """What Markdown would turn into markup or a dangerous link, if anything.

    Parsing is the only reliable way to see what a renderer would see; the cheap test
    first keeps it off the path of the thousands of fields that hold neither.
    """
    if _MARKUP_HINT.search(text) is None:
        return None
    # Markdown's link parsing is quadratic in the brackets of one text: a field of
    # 10,000 "![" takes a second. Prose never needs more than a few.
    n = text.count("[") + text.count("<")
    if n > MAX_MARKUP:
        return f"{n:,} '[' and '<' characters (more than {MAX_MARKUP} is not prose)"
    for token in _MD.parse(text):
        for t in [token, *(token.children or [])]:
            if t.type in ("html_inline", "html_block"):
                return f"raw HTML ({t.content.strip()[:40]!r})"
            if t.type == "link_open" and not str(t.attrGet("href") or "").startswith("https://"):
                return f"a link that is not https:// ({str(t.attrGet('href'))[:40]!r})"
    return None


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=False)


class L10n(_Model):
    """A prose text in English and Chinese; a reader sees the other language when theirs is missing."""

    en: str | None = Field(None, description="English text.", max_length=20_000)
    zh: str | None = Field(None, description="Chinese (simplified) text.", max_length=20_000)

    @model_validator(mode="after")
    def _one_language(self) -> "L10n":
        if not (self.en or "").strip() and not (self.zh or "").strip():
            raise ValueError("needs a non-empty 'en' or 'zh' text")
        for lang in LANGS:
            text = getattr(self, lang)
            problem = _markdown_problem(text) if text else None
            if problem:
                raise ValueError(f"'{lang}' contains {problem}; write plain text, Markdown and https:// links only")
        return self

    def get(self, lang: str) -> tuple[str, str]:
        """The text in `lang`, or the other language's; returns (text, language actually used)."""
        own = getattr(self, lang, None) if lang in LANGS else None
        if own and own.strip():
            return own, lang
        for other in LANGS:
            text = getattr(self, other)
            if text and text.strip():
                return text, other
        return "", lang


def _check_specifier(value: str) -> str:
    try:
        SpecifierSet(value)
    except InvalidSpecifier as exc:
        raise ValueError(f"not a PEP 440 version specifier: {value!r} ({exc})") from None
    return value


class ComponentRange(_Model):
    """A package or tool the guide applies to, with the versions affected."""

    name: str = Field(description="Package or tool name as pip or the vendor spells it, e.g. 'vllm', 'torch', 'flashinfer-python', 'cuda', 'nvidia-driver'.", min_length=1, max_length=80)
    versions: str = Field("", description="PEP 440 specifier of the affected versions, e.g. '>=0.31.0,<0.33'; empty means any version.", max_length=200)
    note: L10n | None = Field(None, description="What is known about the versions: where it was seen, which release fixed it.")

    _spec = field_validator("versions")(classmethod(lambda cls, v: _check_specifier(v)))


class Hardware(_Model):
    """GPU generations the guide applies to."""

    compute_capability: list[str] = Field(default_factory=list, description="Compute capabilities as 'major.minor', e.g. '12.0' for SM120 (RTX PRO 6000 Blackwell, RTX 50xx), '10.0' for SM100 (B200), '9.0' for SM90 (H100). Empty means any GPU.")
    gpus: list[str] = Field(default_factory=list, description="GPU models named in the reports, e.g. 'NVIDIA RTX PRO 6000 Blackwell', '2x B300'.")
    note: L10n | None = Field(None, description="What is known about the hardware dependence.")

    @field_validator("compute_capability")
    @classmethod
    def _cc(cls, values: list[str]) -> list[str]:
        for v in values:
            if not re.fullmatch(r"\d{1,2}\.\d{1,2}", v):
                raise ValueError(f"compute capability {v!r} must be written 'major.minor', e.g. '12.0'")
        return values


class EnvFact(_Model):
    """Another environment fact the guide depends on (a flag, a backend, a dtype)."""

    name: str = Field(description="The setting, e.g. 'attention backend', '--kv-cache-dtype', 'cudagraph_mode'.", min_length=1, max_length=120)
    value: str = Field(description="The value under which the error occurs, e.g. 'FLASHINFER_MLA_SPARSE_DSV41'.", min_length=1, max_length=300)


class AppliesTo(_Model):
    """Where the guide applies: software versions, hardware, other settings."""

    components: list[ComponentRange] = Field(default_factory=list, description="Packages and tools with the affected version ranges.")
    hardware: Hardware | None = Field(None, description="GPU generations affected; absent means not hardware-specific.")
    environment: list[EnvFact] = Field(default_factory=list, description="Other settings under which the error occurs.")


class Context(_Model):
    """Evidence that must also be present in the paste for a signature to count as a match."""

    template: str | None = Field(None, description="Template (same syntax as Signature.template) that must match some line of the paste.", max_length=2_000)
    regex: str | None = Field(None, description="RE2 regular expression that must match some line of the paste; needs `anchor`.", max_length=2_000)
    anchor: str | None = Field(None, description="For `regex`: a literal substring every match contains, used to find candidates quickly.", max_length=300)
    why: L10n | None = Field(None, description="Why this context separates this guide from the generic one.")

    @model_validator(mode="after")
    def _one_of(self):
        return _exactly_one_pattern(self)


class Signature(_Model):
    """What identifies the error in pasted text.

    Template syntax: literal text with typed placeholders `{int}`, `{num}`, `{hex}`, `{path}`,
    `{word}`, `{ident}`, `{quoted}`, `{any}` (the rest of a line, lazily), `{version}`.
    Runs of white space match any white space; curly quotes match straight ones.
    """

    id: str = Field(description="Identifier unique within the guide, used in explanations.", pattern=ITEM_ID_PATTERN)
    template: str | None = Field(None, description="Template of an error line (or a few consecutive lines), e.g. 'No common block size for {int}'.", max_length=2_000)
    regex: str | None = Field(None, description="RE2 regular expression, for what a template cannot say; needs `anchor`.", max_length=2_000)
    anchor: str | None = Field(None, description="For `regex`: a literal substring every match contains (at least 8 characters).", max_length=300)
    context: list[Context] = Field(default_factory=list, description="Further evidence that must all be present for a confident match; without it the guide is only offered as similar.")
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


class RawError(_Model):
    """An error exactly as it was printed in a real report."""

    text: str = Field(description="The pasted text, verbatim (log prefixes, paths and numbers kept).", min_length=1, max_length=200_000)
    source: str = Field(description="Where it was printed: 'owner/repo#number' of the issue, or 'seed:<file>'.", pattern=REF_PATTERN)
    note: str | None = Field(None, description="What is special about this example (another version's wording, a wrapper).", max_length=2_000)


class Cause(_Model):
    """A cause of the error, with how sure anyone is of it."""

    text: L10n = Field(description="The cause in plain words.")
    confidence: Literal["confirmed", "likely", "speculative"] = Field(description="'confirmed' when a maintainer or a reproduction showed it; 'likely' when the evidence points there; 'speculative' for a guess.")
    evidence: list[str] = Field(default_factory=list, description="References ('owner/repo#number') that support it.")

    @field_validator("evidence")
    @classmethod
    def _refs(cls, values: list[str]) -> list[str]:
        for v in values:
            if not re.fullmatch(REF_PATTERN, v):
                raise ValueError(f"evidence {v!r} is not 'owner/repo#number'")
        return values


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


class Check(_Model):
    """An environment check: a fact to look at before changing anything."""

    id: str = Field(description="Identifier unique within the guide; it appears in share links (done=…).", pattern=ITEM_ID_PATTERN)
    what: L10n = Field(description="What to check.")
    command: str | None = Field(None, description="The command that shows it.", max_length=2_000)
    expect: L10n | None = Field(None, description="What a good (or a telling) result looks like.")
    condition: Condition | None = Field(None, description="The same check, over a pasted environment report, so the app can evaluate it.")


class Step(_Model):
    """One step of the fix."""

    id: str = Field(description="Identifier unique within the guide; it appears in share links (done=…).", pattern=ITEM_ID_PATTERN)
    text: L10n = Field(description="What to do.")
    commands: list[str] = Field(default_factory=list, description="Commands to run, one per entry.")
    condition: L10n | None = Field(None, description="When this step applies ('if the DEEPGEMM_MXFP4 backend crashes'); absent means always.")


class Verification(_Model):
    """A check that proves the fix worked."""

    id: str = Field(description="Identifier unique within the guide; it appears in share links (done=…).", pattern=ITEM_ID_PATTERN)
    text: L10n = Field(description="What to check.")
    commands: list[str] = Field(default_factory=list, description="Commands that show it.")
    expect: L10n = Field(description="The outcome that proves the fix.")


class Reference(_Model):
    """A public source the guide draws on."""

    ref: str = Field(description="'owner/repo#number' for an issue or pull request, 'seed:<file>' for a founding article.", pattern=REF_PATTERN)
    url: str | None = Field(None, description="An https link to the source.", max_length=500)
    title: str | None = Field(None, description="The source's title.", max_length=300)

    @field_validator("url")
    @classmethod
    def _https(cls, v: str | None) -> str | None:
        if v is not None and not re.fullmatch(r"https://[A-Za-z0-9.-]+(/[^\s<>\"']*)?", v):
            raise ValueError(f"url must be an https:// link (got {v[:60]!r})")
        return v


class Guide(_Model):
    """A troubleshooting guide for one error (family)."""

    id: str = Field(description="The guide's id; must equal the file name without '.yaml'.", pattern=ID_PATTERN)
    title: L10n = Field(description="A short title naming the error.")
    component: str = Field(description="The component folder the guide lives in: vllm, sglang, flashinfer, pytorch, cuda, nccl, transformers, packaging, …", pattern=r"^[a-z0-9][a-z0-9-]{1,39}$")
    summary: L10n = Field(description="Quick conclusion: one paragraph saying what happened and what to do.")
    status: Literal["fixed", "workaround", "unresolved"] = Field(description="'fixed' when a release fixes it, 'workaround' when only a workaround is known, 'unresolved' when neither.")
    fastest_fix: L10n = Field(description="The quickest known way out, or a plain statement that none is confirmed.")
    caveats: list[L10n] = Field(default_factory=list, description="What the fix does not cover; traps.")
    applies_to: AppliesTo = Field(default_factory=AppliesTo, description="Versions, hardware and settings the guide applies to.")
    symptoms: list[L10n] = Field(min_length=1, description="What the person sees.")
    signatures: list[Signature] = Field(min_length=1, description="What identifies the error in pasted text.")
    raw_errors: list[RawError] = Field(min_length=1, description="Verbatim examples from real reports; each must match this guide first (self-test).")
    near_misses: list[RawError] = Field(default_factory=list, description="Real pastes that look alike but must not match this guide (self-test).")
    causes: list[Cause] = Field(min_length=1, description="Causes, each with its confidence.")
    env_checks: list[Check] = Field(default_factory=list, description="Environment checks, in the order to do them.")
    steps: list[Step] = Field(min_length=1, description="The fix, step by step.")
    verification: list[Verification] = Field(min_length=1, description="How to prove the fix worked.")
    references: list[Reference] = Field(min_length=1, description="Public sources, cited.")
    tags: list[str] = Field(default_factory=list, description="Free keywords for browsing, lower case.")
    related: list[str] = Field(default_factory=list, description="Ids of related guides.")
    last_reviewed: dt.date = Field(description="When a person last checked the guide against its sources (YYYY-MM-DD).")

    @model_validator(mode="after")
    def _unique_ids(self) -> "Guide":
        seen: set[str] = set()
        for item in [*self.env_checks, *self.steps, *self.verification]:
            if item.id in seen:
                raise ValueError(f"checklist id {item.id!r} is used twice; env_checks, steps and verification share one namespace")
            seen.add(item.id)
        sig_ids = [s.id for s in self.signatures]
        if len(set(sig_ids)) != len(sig_ids):
            raise ValueError("signature ids must be unique")
        return self

    def checklist_ids(self) -> list[str]:
        return [i.id for i in [*self.env_checks, *self.steps, *self.verification]]
