"""Why a guide ranks where it does, in English and Chinese.

Matching records reasons as codes with values; they are worded only when shown, in the
reader's language, so the JSON output and both languages stay in step.
"""
from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    "verified": {
        "en": "Line {line} of your paste is this guide's error: \"{text}\".",
        "zh": "你粘贴内容的第 {line} 行正是本指南针对的错误：\"{text}\"。",
    },
    "repeated": {
        "en": "The same error appears on {count} lines (first on line {line}); the first one is used.",
        "zh": "同一错误出现在 {count} 行（首次在第 {line} 行），以第一次为准。",
    },
    "context_found": {
        "en": "Line {line} shows what tells this case apart from the generic one: \"{text}\".",
        "zh": "第 {line} 行给出了区分本情形与通用情形的依据：\"{text}\"。",
    },
    "context_module": {
        "en": "Your traceback runs through {module} code (line {line}: \"{text}\").",
        "zh": "你的调用栈经过 {module} 的代码（第 {line} 行：\"{text}\"）。",
    },
    "context_fact": {
        "en": "Your environment report shows it: {found}.",
        "zh": "你的环境报告表明了这一点：{found}。",
    },
    "context_missing": {
        "en": "This guide also needs something your paste does not show ({why}), so it is only similar, not a match.",
        "zh": "本指南还需要你的粘贴内容中没有的信息（{why_zh}），因此只是相似，不是匹配。",
    },
    "wrapper": {
        "en": "This message only reports that another error happened; the paste holds nothing else, so this guide helps find it.",
        "zh": "该消息只是报告另有错误发生；粘贴内容中没有别的错误，本指南帮你找到它。",
    },
    "wrapper_help": {
        "en": "This message only reports that the error above it happened: listed to help read the log, not as the answer.",
        "zh": "该消息只是报告上方的错误已经发生：列出它是为了帮助阅读日志，而不是作为答案。",
    },
    "wrapper_similar": {
        "en": "This guide's message is one that only reports another error; it is listed as similar, not as the answer.",
        "zh": "本指南的消息只是报告另有错误发生；它作为相似项列出，而不是作为答案。",
    },
    "likely": {
        "en": "No signature matched exactly, but line {line} (\"{text}\") reads like this guide's error (\"{theirs}\"): {score} % alike.",
        "zh": "没有签名完全匹配，但第 {line} 行（\"{text}\"）读起来像本指南的错误（\"{theirs}\"）：相似度 {score}%。",
    },
    "likely_differs": {
        "en": "What differs: the guide's error also says {missing}; yours also says {extra}.",
        "zh": "不同之处：指南中的错误还包含 {missing}；你的错误还包含 {extra}。",
    },
    "root_cut": {
        "en": "The traceback that starts on line {line} stops before its error line, and nothing else in the paste is an error a guide knows: this procedure says what to paste instead.",
        "zh": "从第 {line} 行开始的调用栈在错误行之前就断了，粘贴内容中也没有其他指南认识的错误：本流程说明应改为粘贴什么。",
    },
    "root_none": {
        "en": "No line of the paste reads as an error (an exception, a native error, a failed command): this procedure says what to paste instead.",
        "zh": "粘贴内容中没有任何一行看起来是错误（异常、原生错误或失败的命令）：本流程说明应改为粘贴什么。",
    },
    "root_wrapper_only": {
        "en": "Line {line} only reports that another error happened (it is a wrapper), and that error is not in the paste: this procedure says where to find it.",
        "zh": "第 {line} 行只是报告另有错误发生（它是包装信息），而那个错误不在粘贴内容中：本流程说明去哪里找到它。",
    },
    "not_root": {
        "en": "It matches line {line}, not the root error on line {root}: listed to help read the log, not as the answer.",
        "zh": "它匹配的是第 {line} 行，而不是第 {root} 行的根因错误：列出它是为了帮助阅读日志，而不是作为答案。",
    },
    "later_line": {
        "en": "Ranked below '{top}': its error is on line {line}, after the earlier error on line {top_line} (the root error comes first, the cascade after).",
        "zh": "排在 '{top}' 之后：它匹配的错误在第 {line} 行，晚于第 {top_line} 行的更早错误（先根因，后连锁错误）。",
    },
    "less_context": {
        "en": "Ranked below '{top}': both match the same error, but '{top}' also matched {n} piece(s) of required context and is more specific.",
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
        "en": "Nothing matched; offered only because its error shares rare words with yours: {words}.",
        "zh": "没有匹配；只因其错误与你的错误有相同的少见词语而列出：{words}。",
    },
    "no_match": {
        "en": "No guide's signature matched this paste with confidence.",
        "zh": "没有任何指南的签名可以可靠地匹配这段内容。",
    },
    "root_uncovered": {
        "en": "The root error is on line {line}: \"{text}\". No guide covers it yet.",
        "zh": "根因错误在第 {line} 行：\"{text}\"。目前还没有指南覆盖它。",
    },
    "root_covered_near": {
        "en": "The root error is on line {line}: \"{text}\"; the guide matched it where the same error is reported.",
        "zh": "根因错误在第 {line} 行：\"{text}\"；指南在报告同一错误的位置匹配到了它。",
    },
    "root_triage": {
        "en": "The root error is on line {line}: \"{text}\". No guide names its exact cause; a class guide's triage procedure fits it.",
        "zh": "根因错误在第 {line} 行：\"{text}\"。还没有指南能指出它的确切原因；有一篇类别指南的排查流程适用于它。",
    },
    "below_specific": {
        "en": "Ranked below '{top}': this guide is a triage procedure for a family of errors, and '{top}' names this error's mechanism.",
        "zh": "排在 '{top}' 之后：本指南是针对一类错误的排查流程，而 '{top}' 指出了这个错误的具体机制。",
    },
    "triage": {
        "en": "This guide covers a family of errors, not one mechanism: its procedure finds which one yours is.",
        "zh": "本指南覆盖的是一类错误，而不是某一种机制：按它的流程排查，可以找出你遇到的是哪一种。",
    },
    "triage_raised": {
        "en": "The error was raised in {package} code: {file} (line {line} of your paste).",
        "zh": "错误是在 {package} 的代码中抛出的：{file}（你粘贴内容的第 {line} 行）。",
    },
    "triage_imports": {
        "en": "{by} imports {module} (line {line}).",
        "zh": "{by} 导入了 {module}（第 {line} 行）。",
    },
    "triage_imports_from": {
        "en": "{by} imports {names} from {module} (line {line}).",
        "zh": "{by} 从 {module} 导入 {names}（第 {line} 行）。",
    },
    "triage_keyword": {
        "en": "{function}() does not take the keyword {name}: the caller was written for another version of it.",
        "zh": "{function}() 不接受关键字参数 {name}：调用方是针对它的另一个版本编写的。",
    },
    "triage_missing": {
        "en": "What is missing: {name}, expected from {provider}.",
        "zh": "缺少的是 {name}，应由 {provider} 提供。",
    },
    "triage_symbol": {
        "en": "{library} needs the symbol {symbol}, which {owner} exports; the one loaded does not have it.",
        "zh": "{library} 需要符号 {symbol}，它由{owner_zh}导出；实际加载的版本中没有它。",
    },
    "triage_versions": {
        "en": "Versions in your environment report: {versions}.",
        "zh": "环境报告中的版本：{versions_zh}。",
    },
    "triage_no_report": {
        "en": "Paste an environment report (pip list, nvidia-smi, python -m torch.utils.collect_env) to see the versions of {packages}.",
        "zh": "粘贴环境报告（pip list、nvidia-smi、python -m torch.utils.collect_env）即可看到{packages_zh}的版本。",
    },
    "env_fits": {
        "en": "Environment fits: {what}.",
        "zh": "环境相符：{what_zh}。",
    },
    "env_contradicts": {
        "en": "Environment contradicts: {what}; ranked lower.",
        "zh": "环境不符：{what_zh}；排名降低。",
    },
    "pattern_detail": {
        "en": "pattern: {pattern}",
        "zh": "模式：{pattern}",
    },
}


def word(code: str, lang: str = "en", **values: object) -> str:
    table = MESSAGES[code]
    for key in ("what", "what_zh"):  # reasons from the environment checks end with their own full stop
        if isinstance(values.get(key), str):
            values[key] = values[key].rstrip("。.")
    values.setdefault("what_zh", values.get("what", ""))
    return table.get(lang, table["en"]).format(**values)
