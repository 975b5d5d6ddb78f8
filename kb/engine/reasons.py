"""Why a guide ranks where it does, in English and Chinese.

Matching records reasons as codes with values; they are worded only when shown, in the
reader's language, so the JSON output and both languages stay in step.
"""
from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    "verified": {
        "en": "Signature '{sig}' verified on line {line}: {pattern}",
        "zh": "签名 '{sig}' 在第 {line} 行得到验证：{pattern}",
    },
    "repeated": {
        "en": "The same error appears on {count} lines (first on line {line}); the first one is used.",
        "zh": "同一错误出现在 {count} 行（首次在第 {line} 行），以第一次为准。",
    },
    "context_found": {
        "en": "Required context found on line {line}: {pattern}",
        "zh": "在第 {line} 行找到所需上下文：{pattern}",
    },
    "context_missing": {
        "en": "Required context missing: {pattern} — so this guide is only similar, not a match.",
        "zh": "缺少所需上下文：{pattern}，因此本指南只是相似，不是匹配。",
    },
    "wrapper": {
        "en": "This message only wraps another error; a guide for the wrapped error ranks above it.",
        "zh": "该消息只是包装了另一个错误；针对被包装错误的指南排在它前面。",
    },
    "later_line": {
        "en": "Ranked below '{top}': its error is on line {line}, after the earlier error on line {top_line} (the root error comes first, the cascade after).",
        "zh": "排在 '{top}' 之后：它匹配的错误在第 {line} 行，晚于第 {top_line} 行的更早错误（先根因，后连锁错误）。",
    },
    "less_context": {
        "en": "Ranked below '{top}': both match the same error, but '{top}' also matched {n} required context line(s) and is more specific.",
        "zh": "排在 '{top}' 之后：两者匹配同一错误，但 '{top}' 还匹配了 {n} 条所需上下文，更具体。",
    },
    "less_specific": {
        "en": "Ranked below '{top}': its signature pins down {chars} literal characters against {top_chars}.",
        "zh": "排在 '{top}' 之后：其签名固定的字面字符为 {chars} 个，对方为 {top_chars} 个。",
    },
    "below_wrapper": {
        "en": "Ranked below '{top}': this guide matched only a wrapper message.",
        "zh": "排在 '{top}' 之后：本指南只匹配到一条包装消息。",
    },
    "similar_words": {
        "en": "No signature verified; offered only because its text shares words with the error: {words}.",
        "zh": "没有签名得到验证；只因其文本与错误有相同词语而列出：{words}。",
    },
    "no_match": {
        "en": "No guide's signature matched this paste with confidence.",
        "zh": "没有任何指南的签名可以可靠地匹配这段内容。",
    },
    "env_fits": {
        "en": "Environment fits: {what}.",
        "zh": "环境相符：{what}。",
    },
    "env_contradicts": {
        "en": "Environment contradicts: {what}; ranked lower.",
        "zh": "环境不符：{what}；排名降低。",
    },
}


def word(code: str, lang: str = "en", **values: object) -> str:
    table = MESSAGES[code]
    return table.get(lang, table["en"]).format(**values)
