"""Covered errors in the wordings their guides used to miss: each signature now follows the format
string at the error's raising site, so every value of its arguments and every version's wording matches."""
import pytest

from kb.engine.match import match
from kb.engine.tiers import SCOPE_TIER
from tests.conftest import DATA

CASES = [
    # SGLang: "Capture cuda graph failed: {e}" (decode), "Capture prefill CUDA graph failed: {e}",
    # "Capture Prefill cuda graph failed: {e}" (piecewise). The error after the colon is the root; the guide helps.
    ("sglang-29562-capture-prefill-cuda-graph-failed.txt", "sglang-capture-cuda-graph-failed", "help"),
    # The CUDA device assert "%s:%d: %s: block: [..], thread: [..] Assertion `%s` failed." from a Triton kernel.
    ("litgpt-774-triton-unknown-file-assertion.txt", "cuda-device-side-assert-triggered", "match"),
    # vLLM V0: launcher.py "MQLLMEngine is already dead, terminating server process", the client's
    # RuntimeError("Engine loop has died") and RuntimeError(f"Engine process (pid {pid}) died.").
    ("vllm-10024-title-mq-engine-dead.txt", "vllm-engine-dead-error", "match"),
    ("vllm-10024-engine-loop-has-died.txt", "vllm-engine-dead-error", "match"),
    ("vllm-10812-mq-engine-dead.txt", "vllm-engine-dead-error", "match"),
    # cudaErrorInvalidValue as the driver API names it.
    ("tensorflow-38847-cuda-error-invalid-value.txt", "cuda-error-invalid-argument", "match"),
    # torch._C._cuda_init(): "No CUDA GPUs are available".
    ("pytorch-134542-no-cuda-gpus-are-available.txt", "cuda-no-cuda-capable-device", "match"),
    # ATen MapAllocator.cpp: "unable to mmap {} bytes from file <{}>: {} ({})".
    ("pytorch-87861-unable-to-mmap-bytes.txt", "torch-shared-memory-mapallocator-error", "match"),
    # nccl-tests: "Test NCCL failure %s:%d '%s'" with NCCL's pre-2.18.1 "internal error".
    ("nccl-tests-41-old-internal-error.txt", "nccl-internal-error", "match"),
    # torch.OutOfMemoryError without "Tried to allocate", and THC's "cuda runtime error (2) : out of memory".
    ("vllm-11560-bare-out-of-memory-error.txt", "cuda-oom", "match"),
    ("ncrfpp-121-thc-out-of-memory.txt", "cuda-oom", "match"),
    # "[WinError 126] …" naming no DLL, in torch's own import.
    ("pytorch-39980-winerror-126-no-dll.txt", "windows-torch-c-dll-load-failed", "match"),
    # torch 2.9+: "Search for `cudaErrorAssert' in https://docs.nvidia.com/… for more information."
    ("vllm-52816-search-for-cudaerrorassert-line.txt", "cuda-device-side-assert-triggered", "match"),
]


@pytest.mark.parametrize("name, guide, confidence", CASES, ids=[c[0].removesuffix(".txt") for c in CASES])
def test_a_covered_error_in_another_wording_finds_its_guide(index, name, guide, confidence):
    result = match(index, (DATA / "wording" / name).read_text(encoding="utf-8"))
    if confidence == "match":  # a class guide answers in its own tier (kb.engine.tiers.SCOPE_TIER)
        confidence = SCOPE_TIER[index.guides[guide].scope].name
    assert (result.matches[0].guide_id, result.matches[0].confidence) == (guide, confidence)
