"""Generated files: the JSON Schema of a guide, the CLI help in the README, and the README
files' tables of figures (kb/authoring/readme_blocks.py).

`python -m kb generate` writes them; `--check` (and a test) fails when they are stale.
"""
from __future__ import annotations

import argparse
import json
import re

from kb import ROOT

SCHEMA = ROOT / "schema" / "guide.schema.json"
README = ROOT / "README.md"
_CLI = re.compile(r"(<!-- cli-help:start -->\n).*?(<!-- cli-help:end -->)", re.S)


def schema_text() -> str:
    from schema.models import Guide
    schema = Guide.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def cli_help(parser: argparse.ArgumentParser) -> str:
    """The help of `parser` and of each sub-command; the CLI passes its own parser in, so
    that this module does not depend on the CLI."""
    parts = [parser.format_help()]
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for sp in commands.choices.values():
        parts.append(sp.format_help())
    return "```text\n" + "\n".join(p.rstrip() + "\n" for p in parts) + "```\n"


def readme_text(current: str, parser: argparse.ArgumentParser) -> str:
    return _CLI.sub(lambda m: m.group(1) + cli_help(parser) + m.group(2), current)


def generate(parser: argparse.ArgumentParser, check: bool = False) -> list[str]:
    """Write (or with `check`, only list) the files that are stale. Every block of figures
    must have a registered renderer: the caller imports the modules that register them."""
    from kb.authoring import bench_tables  # noqa: F401 - registers the benchmark tables
    from kb.authoring.readme_blocks import FILES, rewrite
    outputs = {SCHEMA: schema_text()}
    for path in FILES:
        if path.exists():
            text = path.read_text(encoding="utf-8")
            outputs[path] = rewrite(readme_text(text, parser) if path == README else text)
    changed = []
    for path, new in outputs.items():
        if new is None:
            continue
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        if old != new:
            changed.append(str(path.relative_to(ROOT)))
            if not check:
                path.write_text(new, encoding="utf-8")
    return changed
