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

import re2
from dataclasses import dataclass

from kb.engine.parse import Paste

# Messages that only report that something else failed. Guides mark their own wrapper
# signatures too (Signature.wrapper); these are the ones every log of the stack prints.
WRAPPERS = re.compile(
    r"ChildFailedError|failed \(exitcode: -?\d+\)|Root Cause \(first observed failure\)"
    r"|Engine core initiali[sz]ation failed|WorkerProc (?:initiali[sz]ation failed|failed to start)"
    r"|Worker failed with error|(?:Async)?EngineDeadError|Engine process failed to start"
    r"|Got fatal signal from worker processes|RayTaskError|ray\.exceptions\.\w+|ActorDiedError"
    r"|CalledProcessError|subprocess-exited-with-error|Failed building wheel|Could not build wheels"
    r"|ProcessRaisedException|ProcessExitedException|BackendCompilerFailed|Executor worker returned error"
    r"|Failed to build installable wheels|metadata-generation-failed|legacy-install-failure"
    r"|Encountered error while trying to install package|exit code: [1-9]\d*\s*$")
# Errors that are not Python exceptions: native messages, compilers, the kernel.
NATIVE = re.compile(
    r"^\s*what\(\):\s+\S|terminate called after throwing|\bCUDA error: |\bNCCL WARN |Segmentation fault"
    r"|\bSIGSEGV\b|Fatal Python error:|\[TensorRT-LLM\]\[ERROR\]|(?:^|\s|: )(?:fatal )?error: \S|^Killed\s*$"
    r"|\bnvcc fatal\b|^E\s*RuntimeError|undefined symbol: |undefined reference to `|No such file or directory$"
    r"|\bAssertion `.+' failed")
_NATIVE_ALL = re2.compile("(?m)" + NATIVE.pattern)
_WRAPPERS_ALL = re2.compile("(?m)" + WRAPPERS.pattern)
# Lines of a traceback's structure, never an error themselves.
_STRUCTURE = re.compile(r"\s*(?:Traceback \(most recent call last\)|File \"|During handling of the above|The above exception)")
QUIET = re.compile(r"\b(?:DEBUG|INFO|WARNING|WARN)\b")  # a log line at these levels reports no failure
# An HTTP server's access-log line ('"POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error'): it says
# that a request failed, never why. It is the root error only when the paste holds nothing else.
ACCESS_LOG = re.compile(r'"(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) [^"\s]+ HTTP/\d(?:\.\d)?" \d{3}\b')
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


def answering_wrappers(root: "RootError | None", paste: Paste, matched: dict[str, int]) -> set[str]:
    """Of the wrapper guides that matched (guide → the first line it matched), those that answer for
    a paste that holds nothing but wrappers: none when the error a wrapper prints was cut off the
    paste; not one that matched only an access-log line while another wrapper matched elsewhere;
    else all of them: they summarise one failure, and the ranking orders them."""
    if root is None or not root.wrapper_only or root.cut:
        return set()
    logged = {g for g, i in matched.items() if access_log(paste, i)}
    return set(matched) - logged or set(matched)


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
# Wrappers that print the wrapped error on their own line, after them ("… because of the following
# error (look up to see its traceback):\n<the error>" in one message line, BackendCompilerFailed's "raised:").
INLINE = re.compile(r"because of the following error \(look up to see its traceback\):\s*|backend='\w+' raised:\s*")
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
        if i in python_lines or len(t) > 4000 or _quiet(paste, i) or _code(t):
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


def _quiet(paste: Paste, i: int) -> bool:
    prefix = paste.lines[i].prefix
    return bool(prefix) and bool(QUIET.search(prefix)) and "ERROR" not in prefix


def access_log(paste: Paste, i: int) -> bool:
    return "HTTP/" in paste.lines[i].text and bool(ACCESS_LOG.search(paste.lines[i].text))


def _first(paste: Paste, lines) -> int | None:
    """The first of `lines` that is not an access-log line, else the first access-log line."""
    later = None
    for i in lines:
        if not access_log(paste, i):
            return i
        later = i if later is None else later
    return later


def _wrapper_only_lines(paste: Paste) -> list[Event]:
    """Wrapper lines that are neither Python exceptions nor native errors (torchrun's summary table)."""
    lines = (i for m in _WRAPPERS_ALL.finditer(paste.text)
             if len(paste.lines[i := paste.line_at(max(m.start(), m.end() - 1))].text) < 4000)
    i = _first(paste, lines)
    return [] if i is None else [Event(i, None, paste.lines[i].text.strip(), (), i, i + 1, True)]


def _is_source_line(paste: Paste, i: int) -> bool:
    """The line of code a traceback prints under a frame (`    raise ValueError("… failed")`)."""
    return i > 0 and paste.lines[i - 1].text.lstrip().startswith('File "') and paste.lines[i].text[:1] in (" ", "\t")


def _fallback(paste: Paste) -> list[Event]:
    """Error-looking lines of a paste with no exception and no native error; or, for a paste of a
    line or two (an issue title, a message typed from memory), its first line."""
    def usable(i: int) -> bool:
        t = paste.lines[i].text
        return bool(t.strip()) and not _STRUCTURE.match(t) and not _is_source_line(paste, i) and not _quiet(paste, i) and not _code(t)

    first = _first(paste, (i for i in sorted(e.index for e in paste.errors if e.exc_type is None) if usable(i)))
    lines = [] if first is None else [first]
    if not lines:
        # Only a paste of a few lines is its own first line; a longer one is looked at no further.
        nonblank = [i for i, ln in enumerate(paste.lines[:200]) if ln.text.strip()]
        if len(nonblank) <= 10 and len(paste.lines) <= 200:
            few = [i for i in nonblank if usable(i)]
            lines = few[:1] if 0 < len(few) <= 3 else []
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
        first = _first(paste, sorted(wrapper_lines))
        found = [] if first is None else [Event(first, None, paste.lines[first].text.strip(), (), first, first + 1, True)]
    if not found:
        found = _fallback(paste)
    return [marked(e) for e in found]


TYPED = re.compile(r"([\w.]+(?:Error|Exception)):")  # a message that starts with its exception's type
_HEADER = "Traceback (most recent call last):"
_OWN_HEADER = re.compile(r"[\s|+]*(?:Exception Group )?Traceback \(most recent call last\):")  # a header alone on its line


def _cut_wrapper(paste: Paste) -> int | None:
    """In a paste of wrappers only, the first line whose message is a traceback printed after its own
    words (SGLang's "Scheduler hit an exception: Traceback (most recent call last):") when that
    traceback stops before its error line: the error the wrapper reports was cut off the paste."""
    if _HEADER not in paste.text:
        return None
    closed = {x.start for x in paste.errors if x.exc_type is not None}
    for i, line in enumerate(paste.lines):
        if _HEADER in line.text and i not in closed and not _OWN_HEADER.match(line.text):
            return i
    return None


def _said_after(text: str) -> str | None:
    """What a wrapper's message says after its own words ('Capture cuda graph failed: CUDA error:
    capturing stream has unjoined work'), when that is a message of its own, not a path or a count."""
    inner = text.strip().lstrip(":").strip().strip("'\"")
    words = [w for w in inner.split() if re.search(r"[A-Za-z]{2}", w)]
    return inner if len(words) >= 3 and sum(c.isalpha() for c in inner) >= 12 else None


def _wrapped(line: str, colon_end: int | None) -> tuple[str, str | None] | None:
    """The error a wrapper line prints after its own words, with its type if it has one: an
    exception named after INLINE's words (a bare fragment such as "initialization failed" says too
    little, and the wrapper's guide is the better answer), or the message after the colon a
    wrapper signature ends with (`colon_end`: where that signature's match ends on the line)."""
    text = line.strip()
    inline = INLINE.search(text)
    typed = TYPED.match(text[inline.end():]) if inline else None
    if typed:
        return text[inline.end():], typed.group(1)
    said = _said_after(line[colon_end:]) if colon_end is not None else None
    if said:
        typed = TYPED.match(said)
        return said, typed.group(1) if typed else None
    return None


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
        cut = _cut_wrapper(paste)
        if cut is not None:
            # The wrapped error was cut off the paste: the wrapper is no answer, the cut is the news.
            return RootError(cut, paste.lines[cut].no, paste.lines[cut].text.strip()[:2000], None,
                             paste.lines[cut].text.strip()[:2000], (), cut, cut + 1, True, False, True)
    inner = None if real else _wrapped(paste.lines[e.index].text, (wrapper_ends or {}).get(e.index))
    if inner is not None:
        text, exc = inner
        return RootError(e.index, paste.lines[e.index].no, text[:2000], exc, text[:2000], e.modules, e.start,
                         e.end, False, e.weak)
    return RootError(e.index, paste.lines[e.index].no, paste.lines[e.index].text.strip()[:2000], e.exc_type,
                     e.message[:2000], e.modules, e.start, e.end, not real, e.weak)
