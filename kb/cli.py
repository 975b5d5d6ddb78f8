"""`python -m kb …`: the engine from the command line, for authors, tests and evaluation."""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kb.diagnosis import as_json, as_text, configured_lookup, diagnose, look_up
from kb.engine.index import Index, load_index
from kb.engine.parse import parse
from kb.guides.load import GUIDES_DIR
from kb.guides.render import guide_markdown, text
from kb.text import say

# What a terminal would act on rather than show: escape sequences (CSI, OSC such as ESC ] 52, the
# clipboard write, DCS/PM/APC strings, C1 CSI), other C0/C1 controls and the bidirectional
# overrides. A guide, a file name or a paste may hold them; nothing this command prints does.
_TERMINAL_CONTROL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b.?"
    r"|\x9b[0-?]*[ -/]*[@-~]|[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"
)


def printable(text: str) -> str:
    """`text` without anything a terminal would interpret; tabs and line breaks stay."""
    return _TERMINAL_CONTROL.sub("", text)


class _Printable:
    """A text stream that passes everything written to it through `printable`."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(printable(text))
        return len(text)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


@contextmanager
def _printable_output() -> Iterator[None]:
    """All output of a command, standard output and errors alike (argparse's included), in one place."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Printable(out), _Printable(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err


class NotText(Exception):
    """FILE is an image, a library, an archive: refused, as the app refuses such an upload."""


def _read(path: str, lang: str = "en") -> str:
    """FILE (or standard input) read as the app reads an upload: a binary file is refused,
    and what was changed to read it (NUL bytes, bad UTF-8, a cut) is said on stderr."""
    from kb.engine.input import decode_log
    data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    decoded = decode_log(data)
    if decoded.text is None:
        raise NotText(say("cli_not_text", lang, path=say("cli_stdin", lang) if path == "-" else path))
    for code, values in decoded.notes:
        print(say("cli_note", lang, note=say(code, lang, **values)), file=sys.stderr)
    return decoded.text


def _index(args) -> Index:
    return load_index(getattr(args, "guides", None) or GUIDES_DIR)


def cmd_match(args) -> int:
    """grep's convention: 0 when a guide answers (match or likely), 1 when none does; 2, an
    error, is returned before any matching."""
    index = _index(args)
    if args.jsonl:
        answered = False
        for n, line in enumerate(_read(args.file, args.lang).splitlines(), 1):
            if not line.strip():
                continue
            try:
                case = json.loads(line)
                text_in = str(case["text"])
            except (ValueError, KeyError, TypeError) as exc:
                print(say("cli_bad_jsonl", args.lang, n=n, problem=exc), file=sys.stderr)
                return 2
            d = diagnose(index, text_in, lang=args.lang)
            answered = answered or d.answered
            print(json.dumps({"id": case.get("id"), **as_json(d, verbose=args.verbose)}, ensure_ascii=False))
        return 0 if answered else 1
    d = diagnose(index, _read(args.file, args.lang), env_text=_read(args.env, args.lang) if args.env else None, lang=args.lang)
    found = look_up(d, configured_lookup())  # None unless KB_GITHUB_LOOKUP switches the live look-up on
    if args.json:
        print(json.dumps(as_json(d, verbose=args.verbose, reports=found), ensure_ascii=False, indent=2))
    else:
        sys.stdout.write(as_text(d, verbose=args.verbose, reports=found))
    return 0 if d.answered else 1


def cmd_validate(args) -> int:
    from kb.authoring.validate import untitled_references, validate
    index = load_index(args.path or GUIDES_DIR)
    problems = validate(index)
    for p in problems:
        print(p)
    n = len(index.guides)
    # Not yet a refusal: most references still lack the title every one should have.
    untitled = untitled_references(index)
    untitled_line = say("cli_untitled", "en", n=untitled) if untitled else None
    if problems:
        if untitled_line:
            print(untitled_line)
        print(say("cli_problems", "en", n=len(problems), guides=n), file=sys.stderr)
        return 1
    print(say("cli_valid", "en", n=n))
    if untitled_line:
        print(untitled_line)
    return 0


def cmd_show(args) -> int:
    index = _index(args)
    g = index.guides.get(args.id)
    if g is None:
        print(say("cli_no_such_guide", args.lang, id=args.id) + say("cli_try_list", args.lang), file=sys.stderr)
        return 2
    if args.format == "yaml":
        sys.stdout.write(index.paths[args.id].read_text(encoding="utf-8"))
    else:
        sys.stdout.write(guide_markdown(g, args.lang))
    return 0


def cmd_list(args) -> int:
    index = _index(args)
    for gid in sorted(index.guides):
        g = index.guides[gid]
        print(f"{gid}\t{g.component}\t{g.status}\t{text(g.title, args.lang)}")
    return 0


def cmd_explain(args) -> int:
    from kb.engine.explain import explain
    index = _index(args)
    if args.id not in index.guides:
        print(say("cli_no_such_guide", args.lang, id=args.id), file=sys.stderr)
        return 2
    sys.stdout.write(explain(index, args.id, _read(args.file, args.lang), args.lang))
    return 0


def cmd_new(args) -> int:
    from kb.authoring.skeleton import skeleton
    sys.stdout.write(skeleton(parse(_read(args.from_error))))
    return 0


def cmd_template_from_format(args) -> int:
    """Print the template every rendering of FORMAT matches; 2 with the reason when there is none."""
    from kb.authoring.formats import ARG_TYPES, FormatError, template_from_format
    from kb.engine.signature import TemplateError
    types = {}
    for item in args.type:
        key, sep, kind = item.partition("=")
        if not sep or kind not in ARG_TYPES:
            print(f"error: --type takes FIELD={'|'.join(ARG_TYPES)}, not {item!r}", file=sys.stderr)
            return 2
        types[key] = kind
    try:
        print(template_from_format(args.format, args.style, types, args.prefix))
    except (FormatError, TemplateError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def cmd_generate(args) -> int:
    from kb.authoring.generate import generate
    from kb.authoring.readme_blocks import BlockError
    from kb.evaluation import readme_tables  # noqa: F401 - registers the evaluation tables
    # A fixed width keeps the help text identical whatever terminal regenerates it.
    os.environ["COLUMNS"] = "100"
    try:
        changed = generate(build_parser(), check=args.check)
    except BlockError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for path in changed:
        print(("stale: " if args.check else "wrote: ") + path)
    return 1 if (args.check and changed) else 0


def cmd_serve(args) -> int:
    from kb.serve import serve
    return serve(args.host, args.port, args.guides)


def cmd_watch(args) -> int:
    from kb.watch import watch
    return watch(args.log, _index(args), exit_on_answer=args.exit_on_answer, lang=args.lang, as_json_lines=args.json)


def cmd_eval(args) -> int:
    from kb.evaluation.evaluate import main as eval_main
    return eval_main(args)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m kb", description="Troubleshooting knowledge base for the ML-infrastructure stack.")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="COMMAND")

    def add(name: str, help_: str, fn):
        sp = sub.add_parser(name, help=help_, description=help_)
        sp.set_defaults(fn=fn)
        return sp

    def lang(sp):
        sp.add_argument("--lang", choices=["en", "zh"], default="en", help="language of the output (default: en)")

    def guides(sp):
        sp.add_argument("--guides", metavar="DIR", help="guides folder (default: guides/)")

    sp = add("match", "Rank the guides for a pasted error, with explanations.", cmd_match)
    sp.epilog = ("Each result has a tier: match, likely, triage (a class guide's procedure for the error's family, "
                 "ranked under any specific answer), help or similar; and its guide's scope: specific or class. "
                 "Exit status, as grep's: 0 when a guide answers, with tier match or likely (for --jsonl: any case), "
                 "1 when none does (only triage, help or similar guides, or none), 2 on an error (no such file, a file "
                 "that is not text, a bad --jsonl line).")
    sp.add_argument("file", metavar="FILE", help="the paste, or - for standard input")
    fmt = sp.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help='print {"matches": [{"id", "score", "tier", "confidence" (= tier), "scope", "explanation", "title", "status", "triage" (class guides)}], "root_error": {"line", "text", "covered", "triage"}, "upstream": [{"project", "repo", "query", "url"}]}, best first; "upstream_reports" with KB_GITHUB_LOOKUP=1')
    fmt.add_argument("--jsonl", action="store_true", help='FILE holds {"id", "text"} per line; print {"id", "matches"} per line')
    sp.add_argument("--env", metavar="REPORT", help="an environment report (vllm collect-env, pip list, nvidia-smi, …) to evaluate the guides' checks against; one inside FILE is read too")
    sp.add_argument("--verbose", action="store_true", help="also show the patterns behind each reason")
    lang(sp)
    guides(sp)
    sp = add("validate", "Validate guides and run their self-tests; exit 1 listing every problem.", cmd_validate)
    sp.add_argument("path", nargs="?", metavar="PATH", help="a guides folder or one guide file (default: guides/)")
    sp = add("show", "Render a guide as Markdown (or print its YAML).", cmd_show)
    sp.add_argument("id", metavar="ID")
    sp.add_argument("--format", choices=["md", "yaml"], default="md")
    lang(sp)
    guides(sp)
    sp = add("list", "List guides: id, component, status, title.", cmd_list)
    lang(sp)
    guides(sp)
    sp = add("explain", "Step by step: why guide ID did or did not match a paste.", cmd_explain)
    sp.add_argument("id", metavar="ID")
    sp.add_argument("file", metavar="FILE", help="the paste, or - for standard input")
    lang(sp)
    guides(sp)
    sp = add("new", "Print a new guide skeleton with signatures proposed from an error.", cmd_new)
    sp.add_argument("--from-error", required=True, metavar="FILE", help="the pasted error, or - for standard input")
    sp = add("template-from-format", "Print a signature template that matches every rendering of a format string from the source.", cmd_template_from_format)
    sp.add_argument("format", metavar="FORMAT", help="the format string as written between its quotes, e.g. 'No common block size for {block_size}'")
    sp.add_argument("--style", choices=["f-string", "format", "percent", "printf", "literal"], default="f-string", help="how FORMAT is filled in (default: f-string)")
    sp.add_argument("--type", action="append", default=[], metavar="FIELD=TYPE", help="an argument's known type (int, float, str, path, name, version), by the field as written or its position; repeatable")
    sp.add_argument("--prefix", default="", help="what is printed before the text, e.g. 'ValueError: '")
    sp = add("eval", "Evaluate matching on labelled cases, tier by tier, against BM25 and exact last-line search.", cmd_eval)
    sp.add_argument("cases", metavar="CASES", help="a JSONL file of {id, text, expect}, or a labelled set's folder")
    sp.add_argument("--json", action="store_true", help="print one JSON object")
    sp.add_argument("--split", metavar="NAME", help="of a labelled set, only the cases of this split (e.g. tuned)")
    sp.add_argument("--answers", metavar="FILE", help="score these answers (another version's `kb match --jsonl` output) instead of matching")
    sp.add_argument("--families", metavar="NAME", help="of a labelled set, read this file of its folder instead of families.json (which guide covers each family)")
    guides(sp)
    sp = add("serve", "Serve the knowledge base as a JSON HTTP API (POST /v1/diagnose, GET /v1/guides).", cmd_serve)
    sp.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    sp.add_argument("--port", type=int, default=8000, help="port to listen on; 0 picks a free one (default: 8000)")
    sp.add_argument("--guides", metavar="DIR", help="guides folder (default: KB_GUIDES_DIR, else guides/)")
    sp.epilog = "Limits: KB_API_MAX_BODY, KB_API_RATE_LIMIT, KB_API_TRUSTED_PROXIES (see the README's configuration table)."
    sp = add("watch", "Follow a growing log file and print a diagnosis for each error block as it completes.", cmd_watch)
    sp.add_argument("log", metavar="LOG", help="the log file (it may not exist yet; truncation and rotation are followed)")
    sp.add_argument("--exit-on-answer", action="store_true", help="exit 0 at the first error a guide answers")
    sp.add_argument("--json", action="store_true", help="print each diagnosis as one line of JSON: kb match --json's fields, with path and line")
    sp.epilog = ("Exit status: 0 after an answer with --exit-on-answer, or when stopped (Ctrl-C, SIGTERM); "
                 "2 on an error (LOG is a directory or cannot be read).")
    lang(sp)
    guides(sp)
    sp = add("generate", "Regenerate schema/guide.schema.json, the CLI help and the tables of figures in the README files.", cmd_generate)
    sp.add_argument("--check", action="store_true", help="only report stale files; exit 1 if any")
    return p


def main(argv: list[str] | None = None) -> int:
    with _printable_output():
        args = build_parser().parse_args(argv)
        try:
            return args.fn(args)
        except FileNotFoundError as exc:
            print(say("cli_no_such_file", getattr(args, "lang", "en"), path=exc.filename), file=sys.stderr)
            return 2
        except NotText as exc:
            print(say("cli_error", getattr(args, "lang", "en"), problem=exc), file=sys.stderr)
            return 2
        except BrokenPipeError:
            return 0
