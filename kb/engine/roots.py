"""The root error of a paste, whether or not a guide covers it.

A paste often holds several errors: the worker's exception, then the summaries of the
processes that waited for it (vLLM's "Engine core initialization failed", torchrun's
ChildFailedError), then the cascade on other ranks. The root error is the first error
that is not only a wrapper around another: the first failing rank, the innermost cause
of a chain, the worker's error before the summary that follows it. A wrapper is the root
only when the paste holds nothing else.

Every function here declines (returns None or an empty list) when the paste holds no error.
"""
from __future__ import annotations

import heapq
import re
from collections.abc import Iterator
from dataclasses import dataclass

import re2

from kb.engine.parse import Paste
from kb.engine.wrappers import _WRAPPERS_ALL, INLINE, TYPED, WRAPPERS, access_log, answering_wrappers, cut_wrapper, first_unlogged, wrapped  # noqa: F401 (re-exported)

# Errors that are not Python exceptions: native messages, compilers, the kernel.
NATIVE = re.compile(
    r"^\s*what\(\):\s+\S|terminate called after throwing|\bCUDA error: |\bNCCL WARN |Segmentation fault"
    r"|\bSIGSEGV\b|Fatal Python error:|\[TensorRT-LLM\]\[ERROR\]|(?:^|\s|: )(?:fatal )?error: \S|^Killed\s*$"
    r"|\bnvcc fatal\b|^E\s*RuntimeError|undefined symbol: |undefined reference to `|No such file or directory$"
    r"|^Failed: Cuda error \S+:\d+ '"  # vLLM's and SGLang's CUDACHECK (custom all-reduce)
    r"|\bAssertion `.+[`'] failed")  # glibc's `expr' and the CUDA device assert's `expr`
_NATIVE_ALL = re2.compile("(?m)" + NATIVE.pattern)
# Lines of a traceback's structure, never an error themselves.
_STRUCTURE = re.compile(r"\s*(?:Traceback \(most recent call last\)|File \"|During handling of the above|The above exception)")
QUIET = re.compile(r"\b(?:DEBUG|INFO|WARNING|WARN)\b")  # a log line at these levels reports no failure
_WARNING_TYPE = re.compile(r"Warning$")


@dataclass(frozen=True)
class Event:
    index: int  # into Paste.lines
    exc_type: str | None  # the exception's type, None for a native error line
    message: str
    modules: tuple[str, ...]  # packages of its traceback's frames, innermost last
    start: int  # first line of its incident (its traceback, or its chain of tracebacks)
    end: int  # last line of its incident
    wrapper: bool
    weak: bool = False  # only a line that looks like an error (no exception, no native error)


@dataclass(frozen=True)
class RootError:
    index: int  # into Paste.lines
    no: int  # line number as pasted
    text: str  # the line as the matcher reads it
    exc_type: str | None
    message: str
    modules: tuple[str, ...]
    start: int
    end: int
    wrapper_only: bool  # the paste holds nothing but wrappers
    weak: bool = False  # found by looks alone: a guide that matches elsewhere knows better
    cut: bool = False  # a wrapper that prints the error it wraps as a traceback, and that traceback is cut short

    def holds(self, i: int) -> bool:
        """Whether line `i` is part of this error: its traceback, its line, the lines its message goes on over."""
        return self.start <= i < self.end or i == self.index


ADJACENT = 2  # lines right above an error that may report it in other words ("Bfloat16 is only supported …")


def covers(paste: Paste, root: RootError, i: int) -> bool:
    """Whether a guide that matched line `i` answers for the root error: the line is part of it, or
    one of the few lines right above it, with no blank line between, that is not a warning."""
    if root.holds(i):
        return True
    if not root.start - ADJACENT <= i < root.start:
        return False
    between = paste.lines[i:root.start]
    return all(ln.text.strip() for ln in between) and not _warns(paste, i)


def _warns(paste: Paste, i: int) -> bool:
    line = paste.lines[i]
    return bool(WARNING_LINE.search(line.text)) or (bool(line.prefix) and bool(QUIET.search(line.prefix))
                                                    and "ERROR" not in line.prefix)


# A line that only warns (Python's `UserWarning: …`, `warnings.warn(`, glog's `[W …]`, a WARNING level):
# an error after it is the root error, and a guide that matched only the warning does not cover it.
WARNING_LINE = re.compile(r"\b[A-Z]\w*Warning: |^\s*warn(?:ings\.warn)?\(|^\[W[\d ]|\bWARNING\b")


def _python_events(paste: Paste) -> Iterator[Event]:
    errors = [e for e in paste.errors if e.exc_type is not None]
    chain_end: dict[int, int] = {}
    for e in errors:
        chain_end[e.chain] = max(chain_end.get(e.chain, -1), e.index)
    for e in errors:
        if _WARNING_TYPE.search(e.exc_type or "") or _quiet(paste, e.index):
            continue
        text = paste.lines[e.index].text
        yield Event(e.index, e.exc_type, e.message, e.modules, _frames_above(paste, min(e.start, e.chain)),
                    _message_end(paste, chain_end[e.chain]), bool(WRAPPERS.search(text)))


def _frames_above(paste: Paste, i: int, limit: int = 200) -> int:
    """Where the traceback of the error on line `i` starts when the paste holds no header for it (an
    excerpt that starts mid-traceback): the frames, source lines and carets right above it."""
    def framish(t: str) -> bool:
        return bool(t.strip()) and (t.lstrip().startswith(('File "', "^", "~")) or t[:1] in " \t" or _code(t))

    j = i
    while j > 0 and i - j < limit:
        if framish(paste.lines[j - 1].text):
            j -= 1
        elif j > 1 and not paste.lines[j - 1].text.strip() and framish(paste.lines[j - 2].text):
            j -= 2  # a blank line the issue tracker put between the lines of a paste
        else:
            break
    return j


MAX_MESSAGE_LINES = 15
_RANK_TAG = re.compile(r"\[(?:rank|default)\d+\]|rank=\d+|\bTP\d+\b|Worker_TP\d+")
_EXC_LINE = re.compile(r"[\w.]+(?:Error|Exception|Warning): ")


def _message_end(paste: Paste, i: int) -> int:
    """The last line of the message that starts on line `i`: NCCL, CUDA and vLLM messages run
    on over several lines ("Last error:", "Duplicate GPU detected …") until a blank line."""
    end = i
    blank = False
    own = paste.lines[i].prefix
    # Ranks that print at once interleave their lines: follow the lines of this line's rank only.
    rank = own if _RANK_TAG.search(own) else None
    seen = 0
    for j in range(i + 1, min(len(paste.lines), i + 1 + 8 * MAX_MESSAGE_LINES)):
        if rank is not None and paste.lines[j].prefix != rank:
            continue
        seen += 1
        if seen > MAX_MESSAGE_LINES:
            break
        t = paste.lines[j].text
        if not t.strip():
            if blank:  # two blank lines end it
                break
            blank = True
            continue
        # Hugging Face messages go on after one blank line ("401 Client Error. …", "", "Cannot access gated repo …").
        if t.startswith(("Traceback", "  File ", "During handling", "The above exception")) or _EXC_LINE.match(t):
            break
        end, blank = j, False
    return end + 1


def _header_only(text: str) -> bool:
    """A line whose words end in the header of the traceback that follows ("warmup error: Traceback
    (most recent call last):"): the error is that traceback's, not these words'."""
    h = text.find("Traceback (most recent call last):")
    return h > 0 and not NATIVE.search(text[:h].rstrip(" :") + "\n")


def _native_lines(paste: Paste) -> list[int]:
    """The lines NATIVE matches, by one linear-time scan of the whole text (RE2), not one search a line."""
    found: list[int] = []
    for m in _NATIVE_ALL.finditer(paste.text):
        i = paste.line_at(max(m.start(), m.end() - 1))  # a match may start on the newline before its line
        if not found or found[-1] != i:
            found.append(i)
    return found


def _native_events(paste: Paste, limit: int = 200) -> Iterator[Event]:
    python_lines = {e.index for e in paste.errors if e.exc_type is not None}
    block: Event | None = None
    n = 0
    for i in _native_lines(paste):
        t = paste.lines[i].text
        if i in python_lines or len(t) > 4000 or _quiet(paste, i) or _code(t) or _header_only(t):
            continue
        if block is not None and i - block.end <= 1:  # one block of native lines is one incident
            block = Event(block.index, block.exc_type, block.message, block.modules, block.start, i + 1, block.wrapper)
            continue
        if block is not None:
            yield block
            n += 1
            if n >= limit:
                return
        # A native message goes on over the lines after it (NCCL's "NCCL INFO … -> 2" trace, CUDA's advice).
        block = Event(i, None, t.strip(), (), max(0, i - 1), max(i + 1, _message_end(paste, i)), bool(WRAPPERS.search(t)))
    if block is not None:
        yield block


_CODE = re.compile(r"\s*(?:raise|return|assert|if|elif|except|print|logger\.\w+|log\.\w+)\b|\s{4,}(?!what\(\))"
                   r"|\s*[\w.\[\]]+\s*=\s*[\w.]+\(|\s*[\w.]+\(.*\)\s*$")


_WHAT = re.compile(r"\s*what\(\):\s+\S")


def _code(text: str) -> bool:
    """A line of source a traceback prints (`    raise ValueError(f"Grammar error: {err}")`); a C++
    exception's `  what():  … (/path/file.cpp:42)` line is the error, not code, whatever it ends with."""
    return bool(_CODE.match(text)) and not _WHAT.match(text)


# NCCL prints its level inside the line, after host:pid:tid [device] ("h1:205632:205772 [1] NCCL INFO dlvsym
# failed on mlx5dv_… undefined symbol: …"): an INFO or TRACE line there reports no failure either, but
# for the trace of a failing call's return code ("NCCL INFO misc/socket.cc:568 -> 2").
_NCCL_QUIET = re.compile(r"\bNCCL (?:INFO|TRACE)\b(?!.*-> [1-9]\d*\s*$)")


def quiet(paste: Paste, i: int) -> bool:
    """A log line at a level that reports no failure (INFO, DEBUG, WARNING prefixes; NCCL's INFO)."""
    prefix = paste.lines[i].prefix
    return (bool(prefix) and bool(QUIET.search(prefix)) and "ERROR" not in prefix) or bool(_NCCL_QUIET.search(paste.lines[i].text))


_quiet = quiet


def _wrapper_only_lines(paste: Paste) -> list[Event]:
    """Wrapper lines that are neither Python exceptions nor native errors (torchrun's summary table)."""
    lines = (i for m in _WRAPPERS_ALL.finditer(paste.text)
             if len(paste.lines[i := paste.line_at(max(m.start(), m.end() - 1))].text) < 4000)
    first = first_unlogged(paste, lines)
    return [] if first is None else [Event(first, None, paste.lines[first].text.strip(), (), first, first + 1, True)]


def _is_source_line(paste: Paste, i: int) -> bool:
    """The line of code a traceback prints under a frame (`    raise ValueError("… failed")`)."""
    return i > 0 and paste.lines[i - 1].text.lstrip().startswith('File "') and paste.lines[i].text[:1] in (" ", "\t")


def _fallback(paste: Paste) -> list[Event]:
    """Error-looking lines of a paste with no exception and no native error; or, for a paste of a
    line or two (an issue title, a message typed from memory), its first line."""
    def usable(i: int) -> bool:
        t = paste.lines[i].text
        return bool(t.strip()) and not _STRUCTURE.match(t) and not _is_source_line(paste, i) and not _quiet(paste, i) and not _code(t)

    first = first_unlogged(paste, (i for i in sorted(e.index for e in paste.errors if e.exc_type is None) if usable(i)))
    lines = [] if first is None else [first]
    if not lines:
        # Only a paste of a few lines is its own first line; a longer one is looked at no further.
        nonblank = [i for i, ln in enumerate(paste.lines[:200]) if ln.text.strip()]
        if len(nonblank) <= 10 and len(paste.lines) <= 200:
            few = [i for i in nonblank if usable(i)]
            # NCCL's INFO lines still make it a log, not a title: they count, though none is its error.
            n = sum(usable(i) or bool(_NCCL_QUIET.search(paste.lines[i].text)) for i in nonblank)
            lines = few[:1] if 0 < len(few) and n <= 3 else []
    return [Event(i, None, paste.lines[i].text.strip(), (), i, i + 1, bool(WRAPPERS.search(paste.lines[i].text)), True)
            for i in lines]


def events(paste: Paste, wrapper_lines: frozenset[int] = frozenset()) -> list[Event]:
    """The errors of the paste in order, up to the first that is not a wrapper (the root: what
    follows it is never needed, and a log of 150,000 errors would pay for each); `wrapper_lines`
    are lines a guide's wrapper signature matched."""
    if paste.empty:
        return []
    # The same wrapper line printed again (by another rank, or re-raised) is a wrapper too.
    texts = {paste.lines[i].text.strip() for i in wrapper_lines}

    def marked(e: Event) -> Event:
        if e.wrapper or (e.index not in wrapper_lines and paste.lines[e.index].text.strip() not in texts):
            return e
        return Event(e.index, e.exc_type, e.message, e.modules, e.start, e.end, True, e.weak)

    found: list[Event] = []
    for e in heapq.merge(_python_events(paste), _native_events(paste), key=lambda e: e.index):
        found.append(marked(e))
        if not found[-1].wrapper:
            return found
    if not found:
        found = _wrapper_only_lines(paste)
    if not found:
        # A line a guide's wrapper signature matched is an error too: then nothing but the wrapper is here.
        first = first_unlogged(paste, sorted(wrapper_lines))
        found = [] if first is None else [Event(first, None, paste.lines[first].text.strip(), (), first, first + 1, True)]
    if not found:
        found = _fallback(paste)
    return [marked(e) for e in found]


def root_error(paste: Paste, wrapper_lines: frozenset[int] = frozenset(),
               wrapper_ends: dict[int, int] | None = None) -> RootError | None:
    """The root error; `wrapper_ends`: for a line a wrapper signature ending in a colon matched,
    where that match ends (the wrapped error follows it on the line)."""
    found = events(paste, wrapper_lines)
    if not found:
        return None
    real = [e for e in found if not e.wrapper]
    e = real[0] if real else found[0]
    if not real:
        cut = cut_wrapper(paste)
        if cut is not None:
            # The wrapped error was cut off the paste: the wrapper is no answer, the cut is the news.
            return RootError(cut, paste.lines[cut].no, paste.lines[cut].text.strip()[:2000], None,
                             paste.lines[cut].text.strip()[:2000], (), cut, cut + 1, True, False, True)
    inner = None if real else wrapped(paste.lines[e.index].text, (wrapper_ends or {}).get(e.index))
    if inner is not None:
        text, exc = inner
        return RootError(e.index, paste.lines[e.index].no, text[:2000], exc, text[:2000], e.modules, e.start,
                         e.end, False, e.weak)
    return RootError(e.index, paste.lines[e.index].no, paste.lines[e.index].text.strip()[:2000], e.exc_type,
                     e.message[:2000], e.modules, e.start, e.end, not real, e.weak)
