"""The likely tier compares what an error says, not the sentences many errors print around it:
PyTorch's "CUDA kernel errors might be asynchronously reported …", THC's "cuda runtime error (N) :",
the check macros' "… please report a bug to PyTorch." Which runs of words are boilerplate is read
from the data: the raw errors of many guides hold them."""
import pytest

from kb.engine.likely import find_likely
from kb.engine.roots import RootError
from kb.engine.textsim import MIN_GUIDES, mask, shingles, strip_boilerplate


def _root(text: str) -> RootError:
    return RootError(0, 1, text, None, text, (), 0, 1, False)


FOREIGN = [
    # vllm#28028's title: an illegal memory access with PyTorch's sentence after it. With the guides of that
    # error left out, the illegal-instruction guide's raw error read 87 % alike through the sentence alone.
    pytest.param("[Bug]: CUDA error: an illegal memory access was encountered CUDA kernel errors might be "
                 "asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
                 {"cuda-illegal-memory-access"}, id="vllm-28028-title"),
]


@pytest.mark.parametrize("line, own", FOREIGN)
def test_a_line_sharing_only_boilerplate_with_a_guide_is_not_that_guide(index, line, own):
    assert find_likely(index, _root(line), exclude=frozenset(own)) is None


def test_boilerplate_is_what_the_raw_errors_of_many_guides_hold(index):
    held: dict[str, set[str]] = {}
    for gid in index.guides:
        for raw in index.guides[gid].raw_errors:
            for line in raw.text.splitlines():
                for s in shingles(mask(line)):
                    held.setdefault(s, set()).add(gid)
    assert "cuda kernel errors might be" in index.boilerplate
    assert all(len(held.get(s, ())) >= MIN_GUIDES for s in index.boilerplate)
    # A run of words one guide's errors hold is that error's own wording.
    assert not any(s in index.boilerplate for s in shingles(mask("No common block size for 64")))


@pytest.mark.parametrize("line, says", [
    # sgl-project/sglang#35437: a TORCH_INTERNAL_ASSERT in CUDA graph capture.
    ('RuntimeError: num_active_captures_ > 0 INTERNAL ASSERT FAILED at "CUDACachingAllocator.cpp":3211, please report '
     "a bug to PyTorch. markCaptureEnd called with no captures i",
     "runtimeerror: num_active_captures_ > n markcaptureend called with no captures i"),
    # jiesutd/NCRFpp#121: THC's wording around the CUDA error.
    ("RuntimeError: cuda runtime error (2) : out of memory at /pytorch/torch/lib/THC/generic/THCStorage.cu:58",
     ": out of memory at thcstorage.cu : n"),
])
def test_what_an_error_says_without_its_boilerplate(index, line, says):
    assert strip_boilerplate(mask(line), index.boilerplate) == says
