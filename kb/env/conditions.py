"""Evaluate a guide's environment checks and applicability against a parsed report.

A check's `condition` passes when the environment satisfies it; it is "unknown" when the
report does not state the fact, which is common: people paste only part of a report.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from kb.env.record import EnvRecord, normalise_package

if TYPE_CHECKING:  # only for annotations: evaluation needs nothing but the attributes
    from schema.models import AppliesTo, Condition

Status = Literal["pass", "fail", "unknown", "reported"]  # reported: a value shown, nothing tested
Verdict = Literal["fits", "contradicts"]

_TORCH_NAMES = {"torch", "pytorch"}
_CUDA_NAMES = {"cuda", "cuda-toolkit", "cuda-runtime"}
_DRIVER_NAMES = {"nvidia-driver", "driver"}


@dataclass(frozen=True)
class CheckOutcome:
    """The result of one check over a report."""

    status: Status
    found: str | None  # the value the report states, e.g. "vllm 0.6.4.post1"
    reason: str
    reason_zh: str


@dataclass(frozen=True)
class FitNote:
    """Whether one part of a guide's `applies_to` matches the report."""

    verdict: Verdict
    what: str  # the component or hardware looked at, e.g. "vllm" or "compute capability"
    reason: str
    reason_zh: str


# --- versions ------------------------------------------------------------------------------


def satisfies(version: str, spec: str) -> bool | None:
    """Whether `version` is in `spec`; None when either cannot be read as PEP 440.

    Nightlies and release candidates (0.11.1rc2.dev123+g1234) count: a report from a
    nightly is as much evidence as one from a release. Local labels (+cu124) are ignored
    by PEP 440 comparison unless the specifier names one.
    """
    try:
        return SpecifierSet(spec).contains(Version(version), prereleases=True)
    except (InvalidVersion, InvalidSpecifier):
        return None


def cuda_version(env: EnvRecord) -> tuple[str | None, str]:
    """The CUDA version the report's software runs with, and where it came from.

    torch.version.cuda first: it is the CUDA that PyTorch and the wheels built on it load.
    collect_env's "CUDA runtime version" is in fact the toolkit nvcc finds on PATH, which
    may differ; nvcc itself comes last. nvidia-smi's "CUDA Version" is only the newest CUDA
    the driver supports, so it is never taken as the version in use.
    """
    for value, origin in ((env.torch_cuda, "torch CUDA build"), (env.cuda_runtime, "CUDA runtime"),
                          (env.nvcc_version, "nvcc")):
        if value:
            return value, origin
    return None, ""


def _package_version(env: EnvRecord, package: str) -> str | None:
    """A package's version; torch is taken from 'PyTorch version' before any package list."""
    name = normalise_package(package)
    if name in _TORCH_NAMES:
        return env.torch_version or env.package("torch")
    return env.package(name)


# --- checks --------------------------------------------------------------------------------


def _unknown(reason: str, reason_zh: str, found: str | None = None) -> CheckOutcome:
    return CheckOutcome("unknown", found, reason, reason_zh)


def _compare(label: str, value: str, spec: str) -> CheckOutcome:
    """pass/fail of `value` against `spec`, worded for `label` (e.g. 'vllm', 'driver')."""
    found = f"{label} {value}"
    result = satisfies(value, spec)
    if result is None:
        return _unknown(f"{found} cannot be compared with {spec}.", f"{found} 无法与 {spec} 比较。", found)
    if result:
        return CheckOutcome("pass", found, f"{found} satisfies {spec}.", f"{found} 满足 {spec}。")
    return CheckOutcome("fail", found, f"{found} does not satisfy {spec}.", f"{found} 不满足 {spec}。")


def _check_package_version(condition: "Condition", env: EnvRecord) -> CheckOutcome:
    package, spec = condition.package or "", condition.spec or ""
    version = _package_version(env, package)
    if version is None:
        if env.lists_all_packages():
            return CheckOutcome("fail", None, f"{package} is not installed.", f"未安装 {package}。")
        return _unknown(f"The report does not list {package}.", f"报告中没有列出 {package}。")
    if version == "":
        return _unknown(f"{package} is listed without a version.", f"报告列出了 {package}，但没有版本号。",
                        package)
    return _compare(package, version, spec)


def _check_presence(condition: "Condition", env: EnvRecord, want_present: bool) -> CheckOutcome:
    package = condition.package or ""
    version = _package_version(env, package)
    if version is None and not env.lists_all_packages():
        # collect_env lists only "relevant libraries", so absence there proves nothing.
        return _unknown(f"The report has no full package list to tell whether {package} is installed.",
                        f"报告中没有完整的包列表，无法判断是否安装了 {package}。")
    present = version is not None
    found = f"{package} {version}".strip() if present else None
    ok = present == want_present
    word, word_zh = ("installed", "已安装") if present else ("not installed", "未安装")
    return CheckOutcome("pass" if ok else "fail", found, f"{package} is {word}.", f"{package} {word_zh}。")


def _check_compute_capability(condition: "Condition", env: EnvRecord) -> CheckOutcome:
    spec = condition.spec or ""
    if not env.gpus:
        return _unknown("The report names no GPU.", "报告中没有提到 GPU。")
    known = [(name, cc) for name, cc in env.gpus if cc]
    if not known:
        names = ", ".join(dict.fromkeys(name for name, _ in env.gpus))
        return _unknown(f"The compute capability of {names} is not known.", f"不知道 {names} 的计算能力。", names)
    found = "; ".join(dict.fromkeys(f"{cc} ({name})" for name, cc in known))
    results = [satisfies(cc, spec) for _, cc in known]
    if None in results:
        return _unknown(f"{found} cannot be compared with {spec}.", f"{found} 无法与 {spec} 比较。", found)
    # Every GPU must qualify: a mixed machine can still schedule work on the card that fails.
    if all(results):
        return CheckOutcome("pass", found, f"Compute capability {found} satisfies {spec}.",
                            f"计算能力 {found} 满足 {spec}。")
    return CheckOutcome("fail", found, f"Compute capability {found} does not satisfy {spec}.",
                        f"计算能力 {found} 不满足 {spec}。")


def _check_scalar(value: str | None, label: str, noun: str, noun_zh: str, spec: str) -> CheckOutcome:
    """A single stated version (driver, Python, CUDA) against `spec`; `label` prefixes `found`."""
    if not value:
        return _unknown(f"The report does not state the {noun}.", f"报告中没有说明{noun_zh}。")
    return _compare(label, value, spec)


def evaluate(condition: "Condition", env: EnvRecord) -> CheckOutcome:
    """Evaluate one check's machine-readable condition over a parsed report."""
    kind, spec = condition.kind, condition.spec or ""
    if kind == "package_version":
        return _check_package_version(condition, env)
    if kind in ("package_present", "package_absent"):
        return _check_presence(condition, env, want_present=kind == "package_present")
    if kind == "compute_capability":
        return _check_compute_capability(condition, env)
    if kind == "cuda_version":
        value, origin = cuda_version(env)
        outcome = _check_scalar(value, "CUDA", "CUDA version", " CUDA 版本", spec)
        return _with_origin(outcome, origin)
    if kind == "driver_version":
        return _check_scalar(env.driver_version, "driver", "driver version", "驱动版本", spec)
    if kind == "python_version":
        return _check_scalar(env.python_version, "Python", "Python version", " Python 版本", spec)
    return _unknown(f"Unknown condition kind {kind!r}.", f"未知的条件类型 {kind!r}。")


def _with_origin(outcome: CheckOutcome, origin: str) -> CheckOutcome:
    """Say which CUDA figure was used, since a report may carry three different ones."""
    if not origin or outcome.found is None:
        return outcome
    return CheckOutcome(outcome.status, f"{outcome.found} ({origin})", outcome.reason, outcome.reason_zh)


# --- applicability -------------------------------------------------------------------------


def _component_value(env: EnvRecord, name: str) -> str | None:
    key = normalise_package(name)
    if key in _TORCH_NAMES:
        return _package_version(env, "torch")
    if key in _CUDA_NAMES:
        return cuda_version(env)[0]
    if key in _DRIVER_NAMES:
        return env.driver_version
    if key == "python":
        return env.python_version
    return env.package(key)


def _component_note(name: str, versions: str, value: str) -> FitNote | None:
    found = f"{name} {value}"
    if not versions.strip():
        return FitNote("fits", name, f"The report has {found}; the guide applies to any version.",
                       f"报告中有 {found}；本指南适用于任何版本。")
    result = satisfies(value, versions)
    if result is None:
        return None
    if result:
        return FitNote("fits", name, f"{found} is in the affected range {versions}.",
                       f"{found} 在受影响范围 {versions} 内。")
    return FitNote("contradicts", name, f"{found} is outside the affected range {versions}.",
                   f"{found} 不在受影响范围 {versions} 内。")


def _same_cc(a: str, b: str) -> bool:
    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return a.strip() == b.strip()


def _hardware_note(wanted: list[str], env: EnvRecord) -> FitNote | None:
    known = [(name, cc) for name, cc in env.gpus if cc]
    if not wanted or not known:
        return None
    listed = ", ".join(wanted)
    matching = [f"{name} ({cc})" for name, cc in known if any(_same_cc(cc, w) for w in wanted)]
    if matching:
        gpu = matching[0]
        return FitNote("fits", "compute capability", f"{gpu} is one of the affected GPUs ({listed}).",
                       f"{gpu} 属于受影响的 GPU（{listed}）。")
    found = ", ".join(dict.fromkeys(f"{name} ({cc})" for name, cc in known))
    return FitNote("contradicts", "compute capability", f"{found} is not among the affected compute capabilities ({listed}).",
                   f"{found} 不在受影响的计算能力（{listed}）之中。")


def fit(applies_to: "AppliesTo", env: EnvRecord) -> list[FitNote]:
    """How a guide's `applies_to` compares with the report, one note per fact the report states."""
    notes: list[FitNote] = []
    for component in applies_to.components:
        value = _component_value(env, component.name)
        note = _component_note(component.name, component.versions, value) if value else None
        if note:
            notes.append(note)
    if applies_to.hardware is not None:
        note = _hardware_note(list(applies_to.hardware.compute_capability), env)
        if note:
            notes.append(note)
    return notes
