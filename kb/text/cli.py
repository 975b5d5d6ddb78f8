"""What `kb match`, `kb watch` and `kb serve` print for a reader (kb.text's command-line section).
Argument help stays in kb/cli.py: it is documentation, in English, and the README shows it."""
from __future__ import annotations

CLI: dict[str, tuple[str, str]] = {
    "cli_empty": ("Nothing to match: the input is empty.", "没有可匹配的内容：输入为空。"),
    "cli_no_guide": ("No guide for this error yet.", "这个报错目前还没有指南。"),
    "cli_no_confident": ("No confident match.", "没有可靠的匹配。"),
    "cli_listed_below": (" Listed below, none of them an answer:", "下面列出的都不是答案："),
    "cli_values": ("values", "数值"),
    "cli_fits_cause": ("fits cause {n}: {says}", "符合原因 {n}：{says}"),
    "cli_note": ("note: {note}", "注意：{note}"),
    "cli_checks": ("Environment checks from the report:", "根据环境报告的环境检查："),
    "cli_upstream": ("Search {repo}'s issues for it: {url}", "在 {repo} 的 issue 中搜索：{url}"),
    # kb watch
    "watch_following": ("Watching {path} (Ctrl-C to stop).", "正在监视 {path}（按 Ctrl-C 停止）。"),
    "watch_block": ("--- error block at line {line} of {path} ---", "--- {path} 第 {line} 行的错误块 ---"),
    "watch_rotated": ("{path} was replaced (rotated): reading the new file from its start.",
                      "{path} 已被替换（日志轮转）：从新文件开头读取。"),
    "watch_truncated": ("{path} was truncated: reading it again from its start.", "{path} 被截断：从开头重新读取。"),
    "watch_missing": ("{path} does not exist yet: waiting for it.", "{path} 还不存在：等待它出现。"),
    "watch_waiting": ("The traceback that starts on line {line} of {path} has no error line yet: waiting for it.",
                      "{path} 第 {line} 行开始的 traceback 还没有错误行：等待中。"),
    "watch_answered": ("Answered by {guide}: exiting.", "已由 {guide} 回答：退出。"),
    # kb serve
    "api_listening": ("kb serve: listening on http://{host}:{port}", "kb serve：正在监听 http://{host}:{port}"),
    "api_too_large": ("The request body is over {limit:,} bytes.", "请求体超过 {limit:,} 字节。"),
    "api_rate_limited": ("Too many requests from this address; try again in a minute.", "来自该地址的请求过多，请一分钟后再试。"),
    "api_bad_json": ("The body is not a JSON object with a string 'text'.", "请求体不是带字符串字段 'text' 的 JSON 对象。"),
    "api_bad_lang": ("'lang' must be 'en' or 'zh'.", "'lang' 必须是 'en' 或 'zh'。"),
    "api_no_guide": ("There is no guide with this id.", "没有这个 id 的指南。"),
    "api_not_found": ("Nothing here; see /openapi.json.", "这里没有内容；请参阅 /openapi.json。"),
    "api_not_text": ("The text is not a log (an image, a library, an archive?).", "该文本不是日志（可能是图片、二进制库或压缩包）。"),
}
