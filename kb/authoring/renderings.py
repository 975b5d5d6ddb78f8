"""Sample renderings of a format string (kb/authoring/formats.py reads it): every field filled with
varied values of the types its argument may have, formatted by Python's own machinery (`format`,
the `%` operator; C's printf conversions mapped onto it), so that `kb validate` can require a
signature's template to match what the program can print."""
from __future__ import annotations

from kb.authoring.formats import _PERCENT, ARG_TYPES, Field, FormatError, declared, parse

# Sample values per argument type: small and large, signed, with dots, spaces, quotes and
# brackets, empty, non-ASCII. A field of unknown type gets all of them.
SAMPLES: dict[str, tuple] = {
    "int": (0, 7, -3, 4096, 123456789),
    "float": (0.5, 1.0, -2.25, 1e-05, 31.41592653589793, 1234567.5),
    "str": ("abc", "two words here", "", "a: b (c) [d]", "it's", "模型", "x=1, y={2}"),
    "path": ("/home/user/models/Qwen2-7B", "./rel/file.bin", "C:\\\\models\\\\x", "model-name_v1.2"),
    "name": ("foo", "Qwen2ForCausalLM", "torch.float16", "_private"),
    "version": ("1.2.3", "2.5.1+cu121", "0.4.0.post1", "4.57.0.dev0", "12"),
}


def _values(field: Field, arg_type: str | None) -> tuple:
    if field.kind == "int":
        return SAMPLES["int"]
    if field.kind in ("float",):
        return SAMPLES["float"] + (SAMPLES["int"] if arg_type != "float" else ())
    if field.kind == "hex":
        return SAMPLES["int"][:2] + (255, 3735928559)
    if arg_type:
        return SAMPLES[arg_type]
    return tuple(v for t in ARG_TYPES for v in SAMPLES[t]) + (None, True, [1, 2], {"k": "v"}, ("a", 1))


def renderings(fmt: str, style: str, arg_types: dict[str, str] | None = None, prefix: str = "") -> list[str]:
    """The format rendered with varied values: rendering i gives field j its ((i + j) mod k)-th sample
    (or the next one its conversion accepts), so every sample of every field appears beside different neighbours."""
    arg_types = arg_types or {}
    parts = parse(fmt, style)
    fields = [p for p in parts if isinstance(p, Field)]
    pools = [_values(f, declared(f, arg_types)) for f in fields]
    count = max((len(p) for p in pools), default=1)
    out = []
    for i in range(count):
        text, j = [prefix], 0
        for part in parts:
            if isinstance(part, str):
                text.append(part)
                continue
            pool = pools[j]
            shown = next((r for k in range(len(pool)) if (r := _render(part, pool[(i + j + k) % len(pool)], style)) is not None), None)
            if shown is None:
                raise FormatError(f"field {part.key or part.position} ({part.spec or 'plain'}) accepts none of the sample values")
            text.append(shown)
            j += 1
        out.append("".join(text))
    return out


# C's conversions as Python's % operator writes them: no length modifiers, no grouping flag.
_C_TO_PY = str.maketrans({"u": "d", "i": "d", "p": "x", "a": "e", "A": "E"})


def _render(field: Field, value, style: str) -> str | None:
    """The value as the conversion prints it, or None where the conversion refuses it
    (a dict under ':>10', a string under '%d'): no program prints that."""
    try:
        if style in ("f-string", "format"):
            shown = {"r": repr, "a": ascii, "s": str}.get(field.conv or "", lambda v: v)(value)
            return format(shown, field.spec)
        spec = field.spec.replace("*", "12")  # a width or precision from an argument
        if style == "printf":
            m = _PERCENT.fullmatch(spec)
            spec = "%" + m["flags"].replace("'", "") + (m["width"] or "") + (f".{m['prec']}" if m["prec"] is not None else "") + m["type"].translate(_C_TO_PY)
            if field.kind == "hex" and isinstance(value, float):
                return None
            if m["type"] == "p":
                spec = spec[:-1] + "#x"
        if field.kind in ("int", "float", "hex") and not isinstance(value, (int, float)) or isinstance(value, bool):
            return None
        return spec % (value,)
    except (TypeError, ValueError, OverflowError):
        return None
