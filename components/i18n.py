"""Every UI label in English and Chinese."""
from __future__ import annotations

import streamlit as st

LANGS = ("en", "zh")
LANG_LABELS = {"en": "English", "zh": "中文"}

UI: dict[str, tuple[str, str]] = {
    "app_title": ("ML-infra troubleshooting", "ML 基础设施排障"),
    "diagnose": ("Diagnose", "诊断"),
    "browse": ("Browse", "浏览"),
    "authors": ("Authors", "作者"),
    "language": ("Language", "语言"),
    "diagnose_intro": ("Paste an error — a traceback, a server log, a worker crash — and get the guide that fits.",
                       "粘贴报错（traceback、服务日志、worker 崩溃信息），找到对应的排障指南。"),
    "paste_label": ("Error or log", "报错或日志"),
    "paste_placeholder": ("Paste the traceback or the log here…", "在此粘贴 traceback 或日志……"),
    "upload_label": ("…or upload a log file", "……或上传日志文件"),
    "env_label": ("Environment report (optional): vllm collect-env, python -m torch.utils.collect_env, pip list, nvidia-smi…",
                  "环境报告（可选）：vllm collect-env、python -m torch.utils.collect_env、pip list、nvidia-smi……"),
    "env_upload_label": ("…or upload the report", "……或上传报告文件"),
    "find": ("Find the guide", "查找指南"),
    "empty_input": ("Paste an error or upload a log to start.", "请先粘贴报错或上传日志。"),
    "binary_file": ("This file does not look like text (it may be an image or a library). Upload the log as text, or paste it.",
                    "该文件看起来不是文本（可能是图片或二进制库）。请上传文本日志，或直接粘贴。"),
    "decoded_with_replacements": ("The file is not valid UTF-8; unreadable bytes were replaced.", "文件不是有效的 UTF-8，无法识别的字节已被替换。"),
    "truncated": ("Only part of the input was analysed: {note}", "只分析了部分输入：{note}"),
    "results": ("Results", "结果"),
    "match": ("Match", "匹配"),
    "similar": ("Similar — not a match", "相似（非匹配）"),
    "score": ("score", "得分"),
    "no_match": ("No guide matches this error with confidence.", "没有任何指南能可靠地匹配这个报错。"),
    "similar_intro": ("These guides are only similar; check them with care:", "以下指南只是相似，请谨慎参考："),
    "no_similar": ("No similar guide either.", "也没有相似的指南。"),
    "new_guide": ("Start a new guide from this error", "用这个报错新建指南"),
    "new_guide_help": ("A guide skeleton with signatures proposed from your paste; secrets, addresses and user names are removed.",
                       "根据报错生成的指南骨架，签名已预先填写；密钥、地址和用户名已被移除。"),
    "open_guide": ("Open guide", "打开指南"),
    "matched_lines": ("Matched lines", "匹配的行"),
    "line": ("line", "行"),
    "status": ("Status", "状态"),
    "summary": ("Summary", "概述"),
    "fastest_fix": ("Fastest fix", "最快修复"),
    "applies_to": ("Applies to", "适用范围"),
    "hardware": ("Hardware", "硬件"),
    "symptoms": ("Symptoms", "症状"),
    "raw_error": ("Raw error", "报错原文"),
    "causes": ("Causes", "原因"),
    "checklist": ("Checklist", "检查清单"),
    "env_checks": ("Environment checks", "环境检查"),
    "steps": ("Steps", "解决步骤"),
    "verification": ("Verification", "验证"),
    "only_if": ("Only if", "仅当"),
    "expect": ("Expected", "预期"),
    "progress": ("{done} of {total} done", "已完成 {done}/{total}"),
    "caveats": ("Caveats", "注意事项"),
    "references": ("References", "参考来源"),
    "related": ("Related guides", "相关指南"),
    "same_component": ("Other {component} guides", "其他 {component} 指南"),
    "share": ("Share this guide in this state", "分享此指南及当前进度"),
    "share_help": ("The link opens this guide in the same language with the same boxes ticked. Your paste is never put in a link.",
                   "链接会以相同语言打开此指南，并勾选相同的项目。粘贴的报错内容不会进入链接。"),
    "export": ("Download as Markdown", "下载为 Markdown"),
    "back": ("← Back to diagnose", "← 返回诊断"),
    "unknown_guide": ("There is no guide with this id.", "没有这个 id 的指南。"),
    "unknown_guide_hint": ("Search the guides instead:", "可以搜索指南："),
    "search": ("Search", "搜索"),
    "search_placeholder": ("error text, id, keyword…", "报错文本、id、关键词……"),
    "component": ("Component", "组件"),
    "tag": ("Tag", "标签"),
    "guides_count": ("{n} guides", "共 {n} 篇指南"),
    "no_guides": ("No guide fits these filters.", "没有符合筛选条件的指南。"),
    "last_reviewed": ("Last reviewed", "最近审核"),
    "fixed": ("fixed", "已修复"),
    "workaround": ("workaround", "有规避方案"),
    "unresolved": ("unresolved", "未解决"),
    "confirmed": ("confirmed", "已确认"),
    "likely": ("likely", "可能"),
    "speculative": ("speculative", "推测"),
    "fallback": ("(not yet translated; shown in {other})", "（暂无中文，显示{other}原文）"),
    "unexpected": ("Something went wrong on this page. The error was logged; please try again or go back.",
                   "页面出错了。错误已记录，请重试或返回。"),
    "bad_lang": ("Unknown language in the link; showing English.", "链接中的语言未知，已显示英文。"),
    # "Did this solve it?"
    "fb_question": ("Did this solve it?", "问题解决了吗？"),
    "fb_comment": ("Anything to add? (optional; secrets, addresses and user names are removed before saving)",
                "还有什么补充？（可选；保存前会移除密钥、地址和用户名）"),
    "fb_send": ("Send", "提交"),
    "fb_thanks": ("Thank you — recorded.", "谢谢，已记录。"),
    "fb_off": ("Feedback recording is switched off on this server.", "本服务器已关闭反馈记录。"),
    # the Authors page
    "au_intro": ("What people pasted that no guide answers yet, and how the guides do. Read-only; nothing here changes the knowledge base.",
              "大家粘贴过但还没有指南能回答的报错，以及各指南的效果。只读页面，不会修改知识库。"),
    "au_unmatched": ("Most frequent unmatched errors", "最常见的未匹配报错"),
    "au_no_unmatched": ("No unmatched error recorded yet.", "还没有记录到未匹配的报错。"),
    "au_seen": ("seen {n}×, last {last}", "出现 {n} 次，最近 {last}"),
    "au_start": ("Start a guide from this", "从这里新建指南"),
    "au_helpfulness": ("Helpfulness by guide", "各指南的有用程度"),
    "au_no_feedback": ("No feedback yet.", "还没有反馈。"),
    "au_over_time": ("Feedback over time", "反馈随时间变化"),
    "au_off": ("Recording is switched off on this server (KB_RECORDING=0).", "本服务器已关闭记录（KB_RECORDING=0）。"),
    "au_guide": ("guide", "指南"), "au_answers": ("answers", "回答数"), "au_rate": ("helpful", "有用比例"), "au_comments": ("recent comments", "最近评论"),
    "au_yes": ("helpful", "有用"), "au_no": ("not helpful", "没用"),
    "env_none": ("No environment report recognised in this text.", "未能识别出环境报告。"),
    "env_badge": ("env", "环境"),
    "bad_done": ("Some ticked items in the link do not exist in this guide and were ignored.", "链接中有些勾选项不属于本指南，已忽略。"),
}


def lang() -> str:
    value = st.session_state.get("lang", "en")
    return value if value in LANGS else "en"


def t(key: str, **values: object) -> str:
    en, zh = UI[key]
    text = zh if lang() == "zh" else en
    return text.format(**values) if values else text
