"""A class guide filled in from the paste: which packages the error is between.

A class guide's procedure starts by finding the packages involved: the one whose code
raised (the deepest frame of the traceback), the one that imports something and the one
that should provide it (`sglang/srt/…` importing `vllm.model_executor.input_metadata`), the
library that needs an undefined symbol and who exports that symbol, and the versions of all
of them when an environment report is given. This module reads that from the traceback's
frames and the error line; the guide's procedure is then about the user's own packages.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from kb.engine.parse import Paste
from kb.engine.tracebacks import package_of
from kb.env.record import EnvRecord
from kb.text import say

MAX_BACK = 400  # lines above the error searched for its traceback's frames
_FRAME = re.compile(r'^\s*File "(?P<file>[^"\n]{1,1000})", line (?P<line>\d+), in (?P<func>\S+)')
_HEADER = "Traceback (most recent call last):"
_STDLIB = re.compile(r"/lib/python\d\.\d+/(?!site-packages/|dist-packages/)|^<frozen ")  # the interpreter's own modules
_IMPORT = re.compile(r"^\s*(?:from\s+(?P<from>\.*[A-Za-z_][\w.]*)\s+import\s+(?P<names>[\w, ()*]+?)\s*(?:#.*)?$"
                     r"|import\s+(?P<mod>[A-Za-z_][\w.]*))")
# What the error line says is missing, and from where.
_MISSING = [
    re.compile(r"cannot import name '(?P<name>[\w.]+)' from '(?P<mod>[\w.]+)'"),
    re.compile(r"cannot import name '(?P<name>[\w.]+)'"),
    re.compile(r"No module named '(?P<mod>[\w.]+)'"),
    re.compile(r"module '(?P<mod>[\w.]+)' has no attribute '(?P<name>\w+)'"),
    re.compile(r"'(?P<cls>\w+)' object has no attribute '(?P<name>\w+)'"),
    re.compile(r"(?P<func>[\w.<>]+)\(\) got an unexpected keyword argument '(?P<name>\w+)'"),
]
_SYMBOL = re.compile(r"(?:(?P<lib>[^\s:'\"()]+\.(?:so|pyd|dll)[\w.]*): )?undefined symbol: (?P<sym>[\w$.@]+)")
# Who exports a symbol, from its (mangled) name: C++ namespaces of libtorch, the CUDA driver
# API (cu + a capital: cuGreenCtxCreate, cuTensorMapEncodeTiled) and the runtime (cudaMalloc).
_OWNERS = [(re.compile(r"^_ZN[KS]?\d*(?:3c10|2at|5torch|5caffe2)"), "torch"),
           (re.compile(r"^cu[A-Z]\w*"), "CUDA driver"),
           (re.compile(r"^cuda[A-Z]\w*"), "CUDA runtime"),
           (re.compile(r"^nccl[A-Z]\w*"), "NCCL"),
           (re.compile(r"^Py[A-Z_]\w*|^_Py\w+"), "Python")]
_NOT_PACKAGES = {"CUDA driver", "CUDA runtime", "NCCL", "Python"}  # owners of symbols that no package list shows
# Import names whose distribution is spelled otherwise (normalise_package handles '_' and '-').
_DISTRIBUTION = {"flashinfer": ("flashinfer-python", "flashinfer"), "cv2": ("opencv-python", "opencv-python-headless"),
                 "PIL": ("pillow",), "sklearn": ("scikit-learn",), "yaml": ("pyyaml",), "google": ("protobuf",)}


@dataclass(frozen=True)
class Frame:
    line: int  # index into Paste.lines
    path: str
    code: str | None  # the source line printed under it

    @property
    def package(self) -> str | None:
        found = package_of(self.path)
        if found is not None or _STDLIB.search(self.path.replace("\\", "/")):
            return found
        # A source checkout of a package the list does not know: /code/tilelang/tilelang/__init__.py.
        parts = self.path.replace("\\", "/").split("/")
        return parts[-2] if len(parts) > 2 and parts[-1] == "__init__.py" and parts[-2].isidentifier() else None

    @property
    def shown(self) -> str:
        """The file from its package on (sglang/srt/layers/x.py), or its name."""
        p = self.path.replace("\\", "/")
        for marker in ("site-packages/", "dist-packages/"):
            if marker in p:
                return p.rsplit(marker, 1)[1][:160]
        pkg = self.package
        if pkg and f"/{pkg}/" in p:
            return (pkg + "/" + p.rsplit(f"/{pkg}/", 1)[1])[:160]
        return p.rsplit("/", 1)[-1][:160]


@dataclass(frozen=True)
class Triage:
    """What the paste says of the packages a class guide's procedure is about."""

    raised_in: str | None = None  # the package of the deepest frame that belongs to one
    raised_at: Frame | None = None
    importer: str | None = None  # the package whose frame imports (None: a script, see import_at)
    import_at: Frame | None = None
    imports: str | None = None  # the module it imports, as written
    names: str | None = None  # what it imports from that module (`from imports import names`)
    missing: str | None = None  # the name, attribute, keyword or symbol the error says is missing
    provider: str | None = None  # the package that should provide it
    library: str | None = None  # for an undefined symbol: the file that needs it
    owner: str | None = None  # and who exports it: "torch", "CUDA driver", …
    versions: tuple[tuple[str, str | None], ...] = ()  # (package, version from the report or None)
    report: bool = False  # an environment report was given
    called: str | None = None  # for an unexpected keyword: the function that refused it

    @property
    def empty(self) -> bool:
        return self.raised_in is None and self.import_at is None and self.missing is None and self.library is None


def frames_above(paste: Paste, li: int) -> list[Frame]:
    """The frames of the traceback that ends at line `li`, outermost first."""
    found: list[Frame] = []
    lo = max(0, li - MAX_BACK)
    for i in range(li - 1, lo - 1, -1):
        text = paste.lines[i].text
        if text.lstrip().startswith(_HEADER):
            break
        m = _FRAME.match(text)
        if m is None:
            continue
        code = paste.lines[i + 1].text.strip() if i + 1 < li else None
        if code is not None and (_FRAME.match(code) or not code.strip("^~ ")):
            code = None
        found.append(Frame(i, m.group("file"), code))
    return found[::-1]


def _top(module: str | None) -> str | None:
    return module.lstrip(".").split(".", 1)[0] or None if module else None


def _import_of(code: str | None) -> str | None:
    m = _IMPORT.match(code or "")
    return (m.group("from") or m.group("mod")) if m else None


def _names_of(code: str | None) -> str | None:
    m = _IMPORT.match(code or "")
    names = m.group("names") if m else None
    return " ".join(names.replace("(", " ").replace(")", " ").split()).strip(", ")[:120] or None if names else None


def read(paste: Paste, li: int, env: EnvRecord | None = None) -> Triage:
    """Fill a class guide in from the error on line `li` and the frames above it."""
    line = paste.lines[li].text
    frames = frames_above(paste, li)
    deepest = next((f for f in reversed(frames) if f.package), None)
    missing = provider = library = owner = None
    said: str | None = None  # the module the message names
    for rx in _MISSING:
        m = rx.search(line)
        if m is not None:
            d = m.groupdict()
            missing, said, called = d.get("name"), d.get("mod"), d.get("func")
            break
    else:
        called = None
    sym = _SYMBOL.search(line)
    imports = [f for f in reversed(frames) if _import_of(f.code)]
    # The import the message is about: one of the module it names, else the deepest import.
    at = next((f for f in imports if said and _top(_import_of(f.code)) == _top(said)), imports[0] if imports else None)
    module = _import_of(at.code) if at else None
    if sym is not None:
        # Who exports the symbol provides it, not the package whose extension needs it.
        missing, library = sym.group("sym"), sym.group("lib")
        owner = next((who for rx, who in _OWNERS if rx.match(missing)), None)
        provider = owner
    else:
        provider = _top(said) or (_top(module) if module and not module.startswith(".") else None)
    lib_pkg = package_of(library) if library else None
    packages = [n for n in dict.fromkeys([deepest.package if deepest else None, at.package if at else None, lib_pkg,
                                         provider if provider not in _NOT_PACKAGES else None,
                                         "NVIDIA driver" if owner == "CUDA driver" else None]) if n]
    return Triage(deepest.package if deepest else None, deepest, at.package if at else None, at, module,
                  _names_of(at.code) if at else None, missing, provider, library, owner,
                  tuple((n, version(env, n)) for n in packages[:4]), env is not None, called)


def version(env: EnvRecord | None, package: str) -> str | None:
    """What the report says of `package` (an import name), or None."""
    if env is None:
        return None
    if package == "torch":
        return env.torch_version or env.package("torch") or None
    if package == "NVIDIA driver":
        return env.driver_version
    for name in _DISTRIBUTION.get(package, (package,)):
        found = env.package(name)
        if found:
            return found
    return None


# Who exports a symbol, a key of kb.text's catalogue; an owner it does not know is worded as
# "a library the extension was built against".
OWNER_KEYS = {"torch": "owner_torch", "CUDA driver": "owner_cuda_driver", "CUDA runtime": "owner_cuda_runtime",
              "NCCL": "owner_nccl", "Python": "owner_python"}
# Packages that are not import names, worded by the catalogue (the others are their own name in both languages).
_NAMED = {"NVIDIA driver": "pkg_nvidia_driver"}


def _name(package: str, lang: str) -> str:
    return say(_NAMED[package], lang) if package in _NAMED else package


def _spaced(zh: str) -> str:
    """`zh` to stand between Chinese words: a space on each side that is a Latin letter or digit."""
    return (" " if zh[:1].isascii() else "") + zh + (" " if zh[-1:].isascii() else "")


def notes(t: Triage, paste: Paste) -> list[tuple[str, dict]]:
    """The reasons a triage result gives, as codes with values (worded by kb.text.say)."""
    out: list[tuple[str, dict]] = [("triage", {})]
    if t.raised_at is not None:
        out.append(("triage_raised", {"package": t.raised_in, "line": paste.lines[t.raised_at.line].no,
                                      "file": t.raised_at.shown}))
    if t.import_at is not None and t.imports:
        vals = {"by": t.importer or t.import_at.shown, "module": t.imports, "line": paste.lines[t.import_at.line].no}
        out.append(("triage_imports_from", {**vals, "names": t.names}) if t.names else ("triage_imports", vals))
    if t.owner is not None or t.library is not None:
        owner = OWNER_KEYS.get(t.owner or "", "owner_unknown")
        lib = t.library.replace("\\", "/").rsplit("/", 1)[-1] if t.library else "the extension"
        # The Chinese sentence puts the owner right after 由: a name in Latin letters gets a space before it.
        out.append(("triage_symbol", {"symbol": t.missing, "library": lib, "owner": say(owner, "en"),
                                      "owner_zh": _spaced(say(owner, "zh"))}))
    elif t.missing and t.called:
        out.append(("triage_keyword", {"name": t.missing, "function": t.called}))
    elif t.missing and t.provider:
        out.append(("triage_missing", {"name": t.missing, "provider": t.provider}))
    if t.versions:
        if t.report:
            en = ", ".join(f"{_name(n, 'en')} {v}" if v else say("triage_not_listed", "en", package=_name(n, "en"))
                           for n, v in t.versions)
            zh = "，".join(f"{_name(n, 'zh')} {v}" if v else say("triage_not_listed", "zh", package=_name(n, "zh"))
                          for n, v in t.versions)
            out.append(("triage_versions", {"versions": en, "versions_zh": zh}))
        else:
            out.append(("triage_no_report", {"packages": ", ".join(n for n, _ in t.versions),
                                             "packages_zh": _spaced("、".join(_name(n, "zh") for n, _ in t.versions))}))
    return out


def as_dict(t: Triage, paste: Paste) -> dict:
    """The triage object of `kb match --json`."""
    def frame(f: Frame | None) -> dict | None:
        return None if f is None else {"line": paste.lines[f.line].no, "file": f.shown}
    return {"raised_in": t.raised_in, "raised_at": frame(t.raised_at),
            "imports": None if t.import_at is None else {"by": t.importer, "module": t.imports, "names": t.names,
                                                         "at": frame(t.import_at)},
            "missing": t.missing, "provider": t.provider, "called": t.called,
            "symbol": None if t.library is None and t.owner is None else {"name": t.missing, "library": t.library,
                                                                          "owner": t.owner},
            "versions": {n: v for n, v in t.versions}, "environment_report": t.report}
