"""The paste parser on what people really paste."""
import pytest

from kb.engine.parse import last_error_line, parse, strip_prefixes
from kb.feedback.signature import error_signature


@pytest.mark.parametrize("line, prefix", [
    ("vllm-1  | ERROR 11-18 18:07:28 engine.py:366] ValueError: x", "vllm-1  | ERROR 11-18 18:07:28 engine.py:366] "),
    ("ERROR 11-29 10:00:01 [core.py:123] ValueError: x", "ERROR 11-29 10:00:01 [core.py:123] "),
    ("(VllmWorker rank=0 pid=123) ERROR 11-29 10:00:01 [core.py:123] ValueError: x", "(VllmWorker rank=0 pid=123) ERROR 11-29 10:00:01 [core.py:123] "),
    ("(RayWorkerWrapper pid=5128, ip=10.0.0.12) ValueError: x", "(RayWorkerWrapper pid=5128, ip=10.0.0.12) "),
    ("[rank0]: ValueError: x", "[rank0]: "),
    ("[default3]:ValueError: x", "[default3]:"),
    ("[1,0]<stderr>:ValueError: x", "[1,0]<stderr>:"),
    ("[2025-05-01 10:00:00 TP0] ValueError: x", "[2025-05-01 10:00:00 TP0] "),
    ("2024-06-01T12:00:00.123Z ERROR ValueError: x", "2024-06-01T12:00:00.123Z ERROR "),
    ("E1129 10:00:01.123456 12345 socket.cpp:42] ValueError: x", "E1129 10:00:01.123456 12345 socket.cpp:42] "),
])
def test_log_prefixes_are_stripped(line, prefix):
    assert strip_prefixes(line) == (prefix, "ValueError: x")


@pytest.mark.parametrize("line", [
    "[E ProcessGroupNCCL.cpp:737] [Rank 1] Watchdog caught collective operation timeout",
    "| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4 |",
    "RuntimeError: CUDA error: an illegal memory access was encountered",
])
def test_content_is_not_mistaken_for_a_prefix(line):
    assert strip_prefixes(line) == ("", line)


def test_ansi_crlf_and_curly_quotes():
    p = parse("\x1b[31mERROR\x1b[0m 11-29 10:00:01 [core.py:1] RuntimeError: Worker failed with error \u2018boom\u2019\r\nnext\r\n")
    assert p.lines[0].text == "RuntimeError: Worker failed with error 'boom'"
    assert p.lines[1].text == "next"


def test_chained_traceback_errors_in_order():
    text = (
        "Traceback (most recent call last):\n"
        '  File "/a/b.py", line 3, in load\n'
        "KeyError: 'model_type'\n"
        "\n"
        "During handling of the above exception, another exception occurred:\n"
        "\n"
        "Traceback (most recent call last):\n"
        '  File "/a/c.py", line 9, in main\n'
        "ValueError: The checkpoint you are trying to load has model type `qwen3`\n"
    )
    p = parse(text)
    assert [e.exc_type for e in p.errors] == ["KeyError", "ValueError"]
    assert p.errors[0].frames == (("b.py", "load"),)
    assert last_error_line(p).startswith("ValueError: The checkpoint")


def test_non_python_error_lines_found_when_no_exception():
    p = parse("[TensorRT-LLM][ERROR] Assertion failed: Failed to deserialize cuda engine\nall good\n")
    assert [p.lines[e.index].no for e in p.errors] == [1]


def test_oversized_paste_keeps_head_and_tail():
    text = "HEAD-LINE\n" + "filler line\n" * 50_000 + "ValueError: the real error\n"
    p = parse(text, limit=100_000)
    assert p.truncation and "skipped" in p.truncation
    assert p.lines[0].text == "HEAD-LINE"
    assert p.lines[-2].text == "ValueError: the real error"
    assert p.lines[-2].no == 50_002  # numbered as in the original paste


def test_error_signature_is_normalised_and_stable():
    a = parse('Traceback (most recent call last):\n  File "/home/alice/x.py", line 3, in f\nValueError: size 123 at 0xdeadbeef\n')
    b = parse('Traceback (most recent call last):\n  File "/home/bob/x.py", line 9, in f\nValueError: size 456 at 0xfeedface\n')
    assert error_signature(a) == error_signature(b)
    assert "alice" not in error_signature(a) and "123" not in error_signature(a)
