"""`python -m kb …`: the engine from the command line, for authors, tests and evaluation."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from kb.engine.index import Index, load_index
from kb.guides.load import GUIDES_DIR
from kb.engine.match import match
from kb.engine.parse import parse
from kb.engine.output import result_dict, result_text
from kb.guides.render import guide_markdown, text



class NotText(Exception):
    """FILE is an image, a library, an archive: refused, as the app refuses such an upload."""


def _read(path: str) -> str:
    """FILE (or standard input) read as the app reads an upload: a binary file is refused,
    and what was changed to read it (NUL bytes, bad UTF-8, a cut) is said on stderr."""
    from kb.engine.input import decode_log, word
    data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    decoded = decode_log(data)
    if decoded.text is None:
        raise NotText(f"{'standard input' if path == '-' else path} is not a text file (an image, a library, an archive?); give the log as text")
    for code, values in decoded.notes:
        print(f"note: {word(code, **values)}", file=sys.stderr)
    return decoded.text


def _match_status(results: list) -> int:
    """grep's convention: 0 when a guide matched (with confidence), 1 when none did; 2, an
    error, is returned before any matching."""
    return 0 if any(r.confident for r in results) else 1


def _index(args) -> Index:
    return load_index(getattr(args, "guides", None) or GUIDES_DIR)


def _env(args):
    if not getattr(args, "env", None):
        return None
    from kb.engine.envfit import parse_env
    return parse_env(_read(args.env))


def cmd_match(args) -> int:
    index = _index(args)
    env = _env(args)
    if args.jsonl:
        matched = []
        for n, line in enumerate(_read(args.file).splitlines(), 1):
            if not line.strip():
                continue
            try:
                case = json.loads(line)
                text_in = str(case["text"])
            except (ValueError, KeyError, TypeError) as exc:
                print(f"line {n}: not a JSON object with 'text' ({exc})", file=sys.stderr)
                return 2
            res = match(index, text_in)
            matched.append(res)
            print(json.dumps({"id": case.get("id"), **result_dict(res, args.lang)}, ensure_ascii=False))
        return _match_status(matched)
    res = match(index, _read(args.file))
    if env is not None:
        from kb.engine.envfit import apply_env
        checks = apply_env(index, res, env)
    else:
        checks = None
    if args.json:
        out = result_dict(res, args.lang)
        if checks is not None:
            from kb.engine.envfit import checks_dict
            out = checks_dict(out, res, checks, env, args.lang)
        print(json.dumps(out, ensure_ascii=False, indent=2))
    else:
        sys.stdout.write(result_text(res, index.guides, args.lang))
        if checks is not None:
            from kb.engine.envfit import checks_text
            sys.stdout.write(checks_text(res, checks, args.lang))
    return _match_status([res])


def cmd_validate(args) -> int:
    from kb.authoring.validate import validate
    index = load_index(args.path or GUIDES_DIR)
    problems = validate(index)
    for p in problems:
        print(p)
    n = len(index.guides)
    if problems:
        print(f"{len(problems)} problem(s) in the knowledge base ({n} guide(s) loaded).", file=sys.stderr)
        return 1
    print(f"OK: {n} guides valid, every raw error matches its own guide first.")
    return 0


def cmd_show(args) -> int:
    index = _index(args)
    g = index.guides.get(args.id)
    if g is None:
        print(f"No guide with id {args.id!r}. Try: python -m kb list", file=sys.stderr)
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
        print(f"No guide with id {args.id!r}.", file=sys.stderr)
        return 2
    sys.stdout.write(explain(index, args.id, _read(args.file), args.lang))
    return 0


def cmd_new(args) -> int:
    from kb.authoring.skeleton import skeleton
    sys.stdout.write(skeleton(parse(_read(args.from_error))))
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
    sp.epilog = ("Exit status, as grep's: 0 when a guide matches (for --jsonl: any case), 1 when none does (only similar "
                 "guides or none), 2 on an error (no such file, a file that is not text, a bad --jsonl line).")
    sp.add_argument("file", metavar="FILE", help="the paste, or - for standard input")
    fmt = sp.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help='print {"matches": [{"id", "score", "confidence", "explanation"}]}, best first')
    fmt.add_argument("--jsonl", action="store_true", help='FILE holds {"id", "text"} per line; print {"id", "matches"} per line')
    sp.add_argument("--env", metavar="REPORT", help="an environment report (vllm collect-env, pip list, nvidia-smi, …) to evaluate the guides' checks against")
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
    sp = add("eval", "Evaluate matching on cases {id, text, expect} against BM25 and exact last-line search.", cmd_eval)
    sp.add_argument("cases", metavar="CASES.jsonl")
    sp.add_argument("--json", action="store_true", help="print one JSON object")
    guides(sp)
    sp = add("generate", "Regenerate schema/guide.schema.json, the CLI help and the tables of figures in the README files.", cmd_generate)
    sp.add_argument("--check", action="store_true", help="only report stale files; exit 1 if any")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.fn(args)
    except FileNotFoundError as exc:
        print(f"error: no such file: {exc.filename}", file=sys.stderr)
        return 2
    except NotText as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
