"""The guide format.

Every model forbids unknown keys and documents each field, so that the generated
JSON Schema (schema/guide.schema.json) is the reference an author's editor shows.
Checks that need the whole knowledge base (ids against file names, related ids,
self-tests, names a cause's `when` uses) live in kb/authoring/validate.py; checks on
one value live here. Prose is in schema/prose.py, signatures in schema/matching.py.
"""
from __future__ import annotations

import datetime as dt
import re
from typing import Literal

from pydantic import Field, field_validator, model_validator

from schema.matching import Condition, Context, Signature, _check_specifier
from schema.prose import ID_PATTERN, ITEM_ID_PATTERN, LANGS, L10n, _markdown_problem, _Model, control_problem

__all__ = ["LANGS", "AppliesTo", "Cause", "Check", "ComponentRange", "Condition", "Context", "Evidence", "Fix",
           "Guide", "Hardware", "L10n", "RawError", "Reference", "Reproduction", "Signature", "Step", "Verification"]

# owner/repo#123 for issues and PRs; seed:<file> for the two founding articles; owner/repo@sha:path
# for a line of source; doc:<where> for documentation; repro:<guide id> for output this project
# reproduced itself (the script is repro/<guide id>.py); pypi:<name>==<version>[:<path>] for a
# released package as PyPI serves it (a file inside its wheel), where a version claim is checked.
REF_PATTERN = r"^([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+#[0-9]+|seed:[A-Za-z0-9_.-]+|[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+@[0-9a-f]{7,40}:[^\s]+|doc:[^\s]+|repro:[a-z0-9][a-z0-9-]{1,79}|pypi:[A-Za-z0-9_.-]+==[0-9][0-9A-Za-z.+!-]*(?::[^\s]+)?)$"
# An https URL as the app renders it (a link widget, never Markdown): a host of DNS labels, an
# optional port, then only characters RFC 3986 allows unescaped, minus those that Markdown or
# HTML would read (`( ) [ ] < > ' "` and the backslash; write them %-escaped). No user info:
# `https://github.com@evil.example/` shows one host and opens another.
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
HTTPS_URL = r"https://" + _LABEL + r"(?:\." + _LABEL + r")+(?::[0-9]{1,5})?(?:[/?#][A-Za-z0-9\-._~!$&*+,;=:@/?#%]*)?"


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


class RawError(_Model):
    """An error exactly as it was printed in a real report."""

    text: str = Field(description="The pasted text, verbatim (log prefixes, paths and numbers kept).", min_length=1, max_length=200_000)
    source: str = Field(description="Where it was printed: 'owner/repo#number' of the issue, 'seed:<file>', or 'repro:<guide id>'.", pattern=REF_PATTERN)
    note: str | None = Field(None, description="What is special about this example (another version's wording, a wrapper).", max_length=2_000)
    context: str | None = Field(None, description="What the report says beside the error, in its own words, when it did not print it as log text (where the error surfaced, the command line): never shown as the raw error; the self-test matches the text together with it, as a paste carrying that context would be matched.", min_length=8, max_length=2_000)

    def pasted(self) -> str:
        """The text the self-test matches: the error, with the report's context after it."""
        return self.text if self.context is None else f"{self.text}\n{self.context}"
# Who says a quote: only a maintainer, a merged fix or a reproduction can make a cause
# `confirmed`; the docs and the source state facts, reporters and commenters report.
CONFIRMING = ("maintainer", "fix", "reproduction")
SPEAKERS = Literal["maintainer", "fix", "reproduction", "docs", "source", "reporter", "commenter"]
# What a quote does for its cause: shows the cause, shows the fix works, or speaks against the
# cause (kept so that a reader sees the doubt, never counted as support).
ROLES = Literal["cause", "fix", "counter-example"]


def _check_ref(value: str) -> str:
    if not re.fullmatch(REF_PATTERN, value):
        raise ValueError(f"{value!r} is not 'owner/repo#number', 'owner/repo@sha:path', 'doc:…', 'seed:…', 'repro:<guide id>' or 'pypi:<name>==<version>[:<path>]'")
    return value


def _check_url(value: str | None) -> str | None:
    if value is not None and not re.fullmatch(HTTPS_URL, value):
        raise ValueError(f"url must be an https:// link (got {value[:60]!r})")
    return value


class Evidence(_Model):
    """A source supporting a cause, with the words in it that do."""

    ref: str = Field(description="The source: 'owner/repo#number', 'owner/repo@sha:path' for a line of code, 'doc:<where>', 'seed:<file>' or 'repro:<guide id>'; it must also be listed in the guide's references.")
    quote: str | None = Field(None, description="A short verbatim quote from the source (a maintainer's comment, the docs, the line that raises or fixes it), in its original language.", min_length=8, max_length=800)
    by: SPEAKERS | None = Field(None, description="Who says it: 'maintainer', 'fix' (a merged change), 'reproduction', 'docs', 'source' (the code), 'reporter' or 'commenter'. Required with a quote.")
    role: ROLES | None = Field(None, description="What the quote does for the cause: 'cause' (it shows the cause), 'fix' (it shows that the fix or workaround works) or 'counter-example' (it speaks against the cause; never counted as support). Only with a quote.")

    _ref = field_validator("ref")(classmethod(lambda cls, v: _check_ref(v)))

    @model_validator(mode="after")
    def _speaker(self) -> "Evidence":
        if self.quote is not None and self.by is None:
            raise ValueError("a quote needs 'by': who says it")
        if self.role is not None and self.quote is None:
            raise ValueError("'role' says what a quote does; give the quote")
        return self

    @property
    def confirms(self) -> bool:
        return self.quote is not None and self.by in CONFIRMING and self.role != "counter-example"


class Fix(_Model):
    """Where a cause (or the whole error) was fixed upstream."""

    package: str = Field(description="The package that carries the fix, as pip spells it, e.g. 'vllm'.", min_length=1, max_length=80)
    version: str | None = Field(None, description="The first release with the fix, e.g. '0.11.1'.", max_length=40, pattern=r"^[0-9][0-9A-Za-z.+!-]*$")
    ref: str | None = Field(None, description="The pull request or commit that fixes it: 'owner/repo#number'.")
    note: L10n | None = Field(None, description="What the fix changes, if it is not obvious.")

    _ref = field_validator("ref")(classmethod(lambda cls, v: v if v is None else _check_ref(v)))

    @model_validator(mode="after")
    def _something(self) -> "Fix":
        if self.version is None and self.ref is None:
            raise ValueError("give the fixing 'version', the fixing 'ref', or both")
        return self


class When(_Model):
    """A test over the values the signature captured: it says whether this cause fits the paste."""

    test: str = Field(description="An expression over the named values, e.g. 'other > allocated + unallocated + 1 GiB' or 'unallocated >= tried'. Sizes are in bytes; the units KiB, MiB, GiB, TiB and numbers may be used; operators: + - * / < <= > >= == and or not.", min_length=3, max_length=300)
    says: L10n = Field(description="What the test shows when it holds, naming the values in braces: '{unallocated} is reserved but unallocated, more than the {tried} requested'.")


class Cause(_Model):
    """A cause of the error, with how sure anyone is of it and why."""

    text: L10n = Field(description="The cause in plain words.")
    confidence: Literal["confirmed", "likely", "speculative"] = Field(description="'confirmed' only when a quote by a maintainer, a merged fix or a reproduction says so; 'likely' when the evidence points there; 'speculative' for a guess.")
    evidence: list[str | Evidence] = Field(default_factory=list, description="Sources that support it: a reference ('owner/repo#number'), or an object with the reference, a verbatim quote, who says it and what the quote does (its role: cause, fix or counter-example).")
    fixed_in: list[Fix] = Field(default_factory=list, description="Upstream releases or pull requests that fix this cause.")
    when: When | None = Field(None, description="A test over the captured values that tells whether this cause fits the paste; the page then says which cause fits and why, in the reader's own numbers.")

    @field_validator("evidence")
    @classmethod
    def _refs(cls, values: list) -> list:
        for v in values:
            if isinstance(v, str):
                _check_ref(v)
        return values

    def refs(self) -> list[str]:
        return [e if isinstance(e, str) else e.ref for e in self.evidence]

    def quotes(self) -> list[Evidence]:
        return [e for e in self.evidence if isinstance(e, Evidence) and e.quote]


class Reproduction(_Model):
    """This project produced the error itself: where, with what, and the script that does it."""

    script: str = Field(description="The script that produces the error the way a user would: 'repro/<guide id>.py'. Run with --fix it applies the guide's fix.", pattern=r"^repro/[a-z0-9][a-z0-9-]{1,79}\.py$")
    hardware: str = Field(description="The machine, e.g. 'NVIDIA H200 (1 GPU)'.", min_length=3, max_length=200)
    software: list[str] = Field(min_length=1, description="Versions that matter, e.g. ['torch 2.11.0+cu130', 'CUDA 13.0', 'Python 3.12.3'].")
    date: dt.date = Field(description="When it was run (YYYY-MM-DD).")
    fix_verified: bool = Field(False, description="True when the run with --fix completed without the error.")
    note: L10n | None = Field(None, description="What the reproduction shows beyond the error itself.")


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

    ref: str = Field(description="'owner/repo#number' for an issue or pull request, 'seed:<file>' for a founding article, or any other form a cause's evidence may cite ('owner/repo@sha:path', 'doc:…', 'repro:<guide id>', 'pypi:<name>==<version>[:<path>]').", pattern=REF_PATTERN)
    url: str | None = Field(None, description="An https link to the source.", max_length=500)
    title: str | None = Field(None, description="The source's title, as the source gives it (an issue's or pull request's title); `kb validate` counts the references without one.", max_length=300)

    _url = field_validator("url")(classmethod(lambda cls, v: _check_url(v)))

    @field_validator("title")
    @classmethod
    def _plain_title(cls, value: str | None) -> str | None:
        problem = _markdown_problem(value) if value else None
        if problem:
            raise ValueError(f"title contains {problem}")
        return value


# Raw errors are pasted logs: their colour codes may stay (the matcher reads through them and the
# command line strips every escape before printing). Nothing else in a guide may hold one.
LOG_FIELDS = ("raw_errors.*.text", "near_misses.*.text")


class Guide(_Model):
    """A troubleshooting guide for one error (family)."""

    @model_validator(mode="before")
    @classmethod
    def _no_control_characters(cls, data: object) -> object:
        problem = control_problem(data, log_fields=LOG_FIELDS)
        if problem:
            raise ValueError(problem)
        return data

    id: str = Field(description="The guide's id; must equal the file name without '.yaml'.", pattern=ID_PATTERN)
    title: L10n = Field(description="A short title naming the error.")
    component: str = Field(description="The component folder the guide lives in: vllm, sglang, flashinfer, pytorch, cuda, nccl, transformers, packaging, …", pattern=r"^[a-z0-9][a-z0-9-]{1,39}$")
    summary: L10n = Field(description="Quick conclusion: one paragraph saying what happened and what to do.")
    status: Literal["fixed", "workaround", "unresolved"] = Field(description="'fixed' when a release fixes it, 'workaround' when only a workaround is known, 'unresolved' when neither.")
    scope: Literal["specific", "class"] = Field(description="'specific' when the guide names one mechanism: its signature (with the context it requires) tells what went wrong, and the fix follows from it; it may answer 'match'. 'class' when it covers a family of mechanisms that print the same error (API drift between two packages, an undefined symbol, a shape error inside a library, a message that only reports another error): its procedure finds which mechanism it is. A class guide answers in the 'triage' tier, worded and badged as a triage procedure and filled in from the paste's traceback, never as 'match', and ranks under any specific answer.")
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
    fixed_in: list[Fix] = Field(default_factory=list, description="Upstream releases or pull requests that fix the error as a whole.")
    reproduced: Reproduction | None = Field(None, description="Set when this project reproduced the error on real hardware; the output is kept as a raw error with source 'repro:<guide id>'.")
    last_reviewed: dt.date = Field(description="When a person last checked the guide against its sources (YYYY-MM-DD).")

    @model_validator(mode="after")
    def _unique_ids(self) -> "Guide":
        seen: set[str] = set()
        items: list[Check | Step | Verification] = [*self.env_checks, *self.steps, *self.verification]
        for item in items:
            if item.id in seen:
                raise ValueError(f"checklist id {item.id!r} is used twice; env_checks, steps and verification share one namespace")
            seen.add(item.id)
        sig_ids = [s.id for s in self.signatures]
        if len(set(sig_ids)) != len(sig_ids):
            raise ValueError("signature ids must be unique")
        return self

    def checklist_ids(self) -> list[str]:
        items: list[Check | Step | Verification] = [*self.env_checks, *self.steps, *self.verification]
        return [i.id for i in items]
