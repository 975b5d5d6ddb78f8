"""Wrappers: messages that only report that something else failed.

vLLM's "Engine core initialization failed", torchrun's ChildFailedError, SGLang's "Scheduler hit
an exception", an HTTP server's access-log line: each says that something failed, not what. The
root finder (kb.engine.roots) passes over them to the error they wrap; this module says which lines
are wrappers, what error a wrapper prints after its own words, whether that error was cut off the
paste, and which wrapper guides answer when the paste holds nothing but wrappers.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

import re2

from kb.engine.parse import Paste

if TYPE_CHECKING:
    from kb.engine.roots import RootError

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
    r"|Encountered error while trying to install package|exit code: [1-9]\d*\s*$"
    # vLLM V0's engine client and API server, SGLang's and vLLM's processes, the ASGI server:
    r"|Engine loop has died|LLMEngine is already dead|Engine process \(pid \d+\) died"
    r"|(?:Scheduler|DetokenizerManager|DataParallelController|TpModelWorkerClient|EngineCore|WorkerProc) hit an exception"
    r"|Exception in ASGI application")
_WRAPPERS_ALL = re2.compile("(?m)" + WRAPPERS.pattern)

# An HTTP server's access-log line ('"POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error'): it says
# that a request failed, never why. It is the root error only when the paste holds nothing else.
ACCESS_LOG = re.compile(r'"(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) [^"\s]+ HTTP/\d(?:\.\d)?" \d{3}\b')

# Wrappers that print the wrapped error on their own line, after them ("… because of the following
# error (look up to see its traceback):\n<the error>" in one message line, BackendCompilerFailed's "raised:").
INLINE = re.compile(r"because of the following error \(look up to see its traceback\):\s*|backend='\w+' raised:\s*")


def access_log(paste: Paste, i: int) -> bool:
    return "HTTP/" in paste.lines[i].text and bool(ACCESS_LOG.search(paste.lines[i].text))


def first_unlogged(paste: Paste, lines) -> int | None:
    """The first of `lines` that is not an access-log line, else the first access-log line."""
    later = None
    for i in lines:
        if not access_log(paste, i):
            return i
        later = i if later is None else later
    return later


def answering_wrappers(root: "RootError | None", paste: Paste, matched: dict[str, int]) -> set[str]:
    """Of the wrapper guides that matched (guide → the first line it matched), those that answer for
    a paste that holds nothing but wrappers: none when the error a wrapper prints was cut off the
    paste; not one that matched only an access-log line while another wrapper matched elsewhere;
    else all of them: they summarise one failure, and the ranking orders them."""
    if root is None or not root.wrapper_only or root.cut:
        return set()
    logged = {g for g, i in matched.items() if access_log(paste, i)}
    return set(matched) - logged or set(matched)


def command_line(paste: Paste, i: int) -> bool:
    """Whether line `i` is a shell prompt with the command it ran ("root@a29:/TensorRT-LLM# python3 -c
    "import tensorrt_llm"", "(venv) $ python -m …", ">>> import x"): what was run, not what failed."""
    return bool(_PROMPT.match(paste.lines[i].text))


_PROMPT = re.compile(r'\s*(?:\([\w.-]+\)\s*)?(?:\[?[\w.-]+@[\w.-]+[^\s#$]*\]?\s*[#$]|[$#]|>>>)\s')
TYPED = re.compile(r"([\w.]+(?:Error|Exception)):")  # a message that starts with its exception's type
_HEADER = "Traceback (most recent call last):"
_OWN_HEADER = re.compile(r"[\s|+]*(?:Exception Group )?Traceback \(most recent call last\):")  # a header alone on its line


def cut_wrapper(paste: Paste) -> int | None:
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


def said_after(text: str) -> str | None:
    """What a wrapper's message says after its own words ('Capture cuda graph failed: CUDA error:
    capturing stream has unjoined work'), when that is a message of its own, not a path or a count."""
    inner = text.strip().lstrip(":").strip().strip("'\"")
    words = [w for w in inner.split() if re.search(r"[A-Za-z]{2}", w)]
    return inner if len(words) >= 3 and sum(c.isalpha() for c in inner) >= 12 else None


# vLLM's executor quotes the worker's error inside its own words: "RuntimeError: Worker failed with error
# 'Current vLLM config is not set. …', please check the stack trace above for the root cause". The quoted
# message is the worker's error, in the paste even when the worker's traceback is not.
QUOTING = re.compile(r"Worker failed with error '(?P<inner>.+)', please check the stack trace above")


def wrapped(line: str, colon_end: int | None) -> tuple[str, str | None] | None:
    """The error a wrapper line prints after its own words, with its type if it has one: an
    exception named after INLINE's words (a bare fragment such as "initialization failed" says too
    little, and the wrapper's guide is the better answer), or the message after the colon a
    wrapper signature ends with (`colon_end`: where that signature's match ends on the line)."""
    text = line.strip()
    quoting = QUOTING.search(text)
    if quoting and said_after(quoting.group("inner")):
        inner = quoting.group("inner")
        typed = TYPED.match(inner)
        return inner, typed.group(1) if typed else None
    inline = INLINE.search(text)
    typed = TYPED.match(text[inline.end():]) if inline else None
    if typed and inline:
        return text[inline.end():], typed.group(1)
    said = said_after(line[colon_end:]) if colon_end is not None else None
    if said:
        typed = TYPED.match(said)
        return said, typed.group(1) if typed else None
    return None
