"""What the engine says about a paste, worded only when shown (kb.text's engine section): why a guide
ranks where it does (reason codes recorded by kb.engine.match and ranking), what a paste lacks
(kb.engine.completeness) and how a file was read (kb.engine.input)."""
from __future__ import annotations

REASONS: dict[str, tuple[str, str]] = {
    'cause_against': ('Your paste has {values}, which this cause does not fit (it needs {test}).',
                      '你的粘贴内容中 {values}，不符合这个原因的条件（需要 {test}）。'),
    'verified': ('Line {line} of your paste is this guide\'s error: "{text}".', '你粘贴内容的第 {line} 行正是本指南针对的错误："{text}"。'),
    'repeated': ('The same error appears on {count} lines (first on line {line}); the first one is used.',
                '同一错误出现在 {count} 行（首次在第 {line} 行），以第一次为准。'),
    'context_found': ('Line {line} shows what tells this case apart from the generic one: "{text}".',
                     '第 {line} 行给出了区分本情形与通用情形的依据："{text}"。'),
    'context_module': ('Your traceback runs through {module} code (line {line}: "{text}").',
                      '你的调用栈经过 {module} 的代码（第 {line} 行："{text}"）。'),
    'context_fact': ('Your environment report shows it: {found}.', '你的环境报告表明了这一点：{found}。'),
    'context_missing': ('This guide also needs something your paste does not show ({why}), so it is only similar, not a match.',
                       '本指南还需要你的粘贴内容中没有的信息（{why_zh}），因此只是相似，不是匹配。'),
    'wrapper': ('This message only reports that another error happened; the paste holds nothing else, so this guide helps find it.',
               '该消息只是报告另有错误发生；粘贴内容中没有别的错误，本指南帮你找到它。'),
    'wrapper_help': ('This message only reports that the error above it happened: listed to help read the log, not as the answer.',
                    '该消息只是报告上方的错误已经发生：列出它是为了帮助阅读日志，而不是作为答案。'),
    'wrapper_similar': ("This guide's message is one that only reports another error; it is listed as similar, not as the answer.",
                       '本指南的消息只是报告另有错误发生；它作为相似项列出，而不是作为答案。'),
    'likely': ('No signature matched exactly, but line {line} ("{text}") reads like this guide\'s error ("{theirs}"): {score} % alike.',
              '没有签名完全匹配，但第 {line} 行（"{text}"）读起来像本指南的错误（"{theirs}"）：相似度 {score}%。'),
    'likely_differs': ("What differs: the guide's error also says {missing}; yours also says {extra}.",
                      '不同之处：指南中的错误还包含 {missing}；你的错误还包含 {extra}。'),
    'root_cut': ('The traceback that starts on line {line} stops before its error line, and nothing else in the paste is an error a guide knows: this procedure says what to paste instead.',
                 '从第 {line} 行开始的调用栈在错误行之前就断了，粘贴内容中也没有其他指南认识的错误：本流程说明应改为粘贴什么。'),
    'root_none': ('No line of the paste reads as an error (an exception, a native error, a failed command): this procedure says what to paste instead.',
                  '粘贴内容中没有任何一行看起来是错误（异常、原生错误或失败的命令）：本流程说明应改为粘贴什么。'),
    'root_wrapper_only': ('Line {line} only reports that another error happened (it is a wrapper), and that error is not in the paste: this procedure says where to find it.',
                          '第 {line} 行只是报告另有错误发生（它是包装信息），而那个错误不在粘贴内容中：本流程说明去哪里找到它。'),
    'not_root': ('It matches line {line}, not the root error on line {root}: listed to help read the log, not as the answer.',
                '它匹配的是第 {line} 行，而不是第 {root} 行的根因错误：列出它是为了帮助阅读日志，而不是作为答案。'),
    'later_line': ("Ranked below '{top}': its error is on line {line}, after the earlier error on line {top_line} (the root error comes first, the cascade after).",
                  "排在 '{top}' 之后：它匹配的错误在第 {line} 行，晚于第 {top_line} 行的更早错误（先根因，后连锁错误）。"),
    'less_context': ("Ranked below '{top}': both match the same error, but '{top}' also matched {n} piece(s) of required context and is more specific.",
                    "排在 '{top}' 之后：两者匹配同一错误，但 '{top}' 还匹配了 {n} 条所需上下文，更具体。"),
    'less_specific': ("Ranked below '{top}': its signature pins down {chars} literal characters against {top_chars}.",
                     "排在 '{top}' 之后：其签名固定的字面字符为 {chars} 个，对方为 {top_chars} 个。"),
    'below_wrapper': ("Ranked below '{top}': this guide matched only a wrapper message.",
                     "排在 '{top}' 之后：本指南只匹配到一条包装消息。"),
    'similar_words': ('Nothing matched; offered only because its error shares rare words with yours: {words}.',
                     '没有匹配；只因其错误与你的错误有相同的少见词语而列出：{words}。'),
    'no_match': ("No guide's signature matched this paste with confidence.", '没有任何指南的签名可以可靠地匹配这段内容。'),
    'root_uncovered': ('The root error is on line {line}: "{text}". No guide covers it yet.',
                      '根因错误在第 {line} 行："{text}"。目前还没有指南覆盖它。'),
    'root_covered_near': ('The root error is on line {line}: "{text}"; the guide matched it where the same error is reported.',
                         '根因错误在第 {line} 行："{text}"；指南在报告同一错误的位置匹配到了它。'),
    'root_triage': ('The root error is on line {line}: "{text}". No guide names its exact cause; a class guide\'s triage procedure fits it.',
                    '根因错误在第 {line} 行："{text}"。还没有指南能指出它的确切原因；有一篇类别指南的排查流程适用于它。'),
    'below_specific': ("Ranked below '{top}': this guide is a triage procedure for a family of errors, and '{top}' names this error's mechanism.",
                       "排在 '{top}' 之后：本指南是针对一类错误的排查流程，而 '{top}' 指出了这个错误的具体机制。"),
    # A class guide filled in from the paste (kb.engine.triage.notes)
    'triage': ('This guide covers a family of errors, not one mechanism: its procedure finds which one yours is.',
               '本指南覆盖的是一类错误，而不是某一种机制：按它的流程排查，可以找出你遇到的是哪一种。'),
    'triage_raised': ('The error was raised in {package} code: {file} (line {line} of your paste).',
                      '错误是在 {package} 的代码中抛出的：{file}（你粘贴内容的第 {line} 行）。'),
    'triage_imports': ('{by} imports {module} (line {line}).', '{by} 导入了 {module}（第 {line} 行）。'),
    'triage_imports_from': ('{by} imports {names} from {module} (line {line}).', '{by} 从 {module} 导入 {names}（第 {line} 行）。'),
    'triage_keyword': ('{function}() does not take the keyword {name}: the caller was written for another version of it.',
                       '{function}() 不接受关键字参数 {name}：调用方是针对它的另一个版本编写的。'),
    'triage_missing': ('What is missing: {name}, expected from {provider}.', '缺少的是 {name}，应由 {provider} 提供。'),
    'triage_symbol': ('{library} needs the symbol {symbol}, which {owner} exports; the one loaded does not have it.',
                      '{library} 需要符号 {symbol}，它由{owner_zh}导出；实际加载的版本中没有它。'),
    'triage_versions': ('Versions in your environment report: {versions}.', '环境报告中的版本：{versions_zh}。'),
    'triage_no_report': ('Paste an environment report (pip list, nvidia-smi, python -m torch.utils.collect_env) to see the versions of {packages}.',
                         '粘贴环境报告（pip list、nvidia-smi、python -m torch.utils.collect_env）即可看到{packages_zh}的版本。'),
    # Who exports an undefined symbol (kb.engine.triage.OWNER_KEYS), said after "which" / 由
    'owner_torch': ('torch (libtorch, libc10)', 'torch（libtorch、libc10）'),
    'owner_cuda_driver': ('the CUDA driver API (libcuda.so, installed with the NVIDIA driver, not with torch)',
                          'CUDA 驱动 API（libcuda.so，随 NVIDIA 驱动安装，而不是随 torch 安装）'),
    'owner_cuda_runtime': ('the CUDA runtime (libcudart)', 'CUDA 运行时（libcudart）'),
    'owner_nccl': ('NCCL (libnccl)', 'NCCL（libnccl）'),
    'owner_python': ('the Python interpreter (libpython)', 'Python 解释器（libpython）'),
    'owner_unknown': ('a library the extension was built against', '该扩展构建时所依赖的某个库'),
    'pkg_nvidia_driver': ('NVIDIA driver', 'NVIDIA 驱动'),
    'triage_not_listed': ('{package} (not listed)', '{package}（未列出）'),
    'env_fits': ('Environment fits: {what}.', '环境相符：{what_zh}。'),
    'env_contradicts': ('Environment contradicts: {what}; ranked lower.', '环境不符：{what_zh}；排名降低。'),
    'pattern_detail': ('pattern: {pattern}', '模式：{pattern}'),
}

# The tiers of a ranked guide (kb.engine.tiers): a card's badge, and the sentence above the results
# when that tier leads and nothing answers
TIER_WORDS: dict[str, tuple[str, str]] = {
    'tier_match': ('Match', '匹配'),
    'tier_likely': ('Likely — no exact match', '很可能（非精确匹配）'),
    'tier_triage': ('Triage procedure — for this family of errors, not a diagnosis', '排查流程：针对这一类错误，并非确诊'),
    'tier_triage_intro': ('No guide names this error\'s exact cause. The first result is a triage procedure for its family of '
                          'errors, filled in from your traceback:',
                          '还没有指南能指出这个报错的确切原因。第一个结果是针对这一类错误的排查流程，已根据你的调用栈填入具体信息：'),
    'tier_help': ('Helps read the log — not the answer', '帮助阅读日志（不是答案）'),
    'tier_help_intro': ('Not the answer, but these guides help read the rest of the log:', '不是答案，但以下指南有助于阅读日志的其余部分：'),
    'tier_similar': ('Similar — not a match', '相似（非匹配）'),
    'tier_similar_intro': ('These guides are only similar; check them with care:', '以下指南只是相似，请谨慎参考：'),
}

# A paste cut short (kb.engine.completeness.cut_notes)
CUT: dict[str, tuple[str, str]] = {
    'traceback_cut': ('The traceback that starts on line {line} stops before its error line, the `SomethingError: …` line that ends every traceback. That line is what finds the guide: paste the log to its end.',
                     '第 {line} 行开始的 traceback 在错误行之前就断了；每个 traceback 都以一行 `XxxError: …` 结尾，找到指南靠的正是这一行。请把日志粘贴到结尾。'),
    'ends_mid_line': ('The paste seems to end in the middle of a line. If it was copied from a terminal or a web page, copy it again to its end.',
                     '粘贴内容似乎在一行的中间就结束了。如果是从终端或网页复制的，请完整复制到结尾。'),
}

# A file read as a log (kb.engine.input.decode_log)
FILE_NOTES: dict[str, tuple[str, str]] = {
    'binary': ('This file does not look like text (it may be an image or a library). Upload the log as text, or paste it.',
              '该文件看起来不是文本（可能是图片或二进制库）。请上传文本日志，或直接粘贴。'),
    'nul': ('NUL bytes in the file were removed.', '已移除文件中的 NUL 字节。'),
    'replaced': ('The file is not valid UTF-8; unreadable bytes were replaced.', '文件不是有效的 UTF-8，无法识别的字节已被替换。'),
    'cut': ('The file is {size:,} bytes: its first {head:,} and last {tail:,} bytes were read, {lines:,} lines between them were not (line numbers after the gap count from the start of what was read).',
           '文件大小为 {size:,} 字节：只读取了开头 {head:,} 字节和结尾 {tail:,} 字节，中间 {lines:,} 行未读取（缺口之后的行号从读取内容的开头算起）。'),
}
