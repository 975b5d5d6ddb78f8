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


def _line(index, guide: str, source: str) -> str:
    """The line of a guide's raw error that its signatures match, as the likely tier holds it."""
    raw = next(i for i, r in enumerate(index.guides[guide].raw_errors) if r.source == source)
    return next(r.text for r in index.refs[guide] if r.key == f"raw:{raw}")


@pytest.mark.parametrize("guide, source", [
    # pytorch#31179: THC's "cuda runtime error (999) : unknown error at …THCGeneral.cpp:…". With its own guide
    # left out, the invalid-argument guide's THC line ("cuda runtime error (11) : invalid argument") read 85 %
    # alike through THC's words alone.
    ("cuda-unknown-error", "pytorch/pytorch#31179"),
])
def test_a_line_sharing_only_boilerplate_with_a_guide_is_not_that_guide(index, guide, source):
    assert find_likely(index, _root(_line(index, guide, source)), exclude=frozenset({guide})) is None


@pytest.mark.parametrize("guide, source", [
    # index-tts#336: an illegal instruction, PyTorch's sentence after it on one line. Without the sentence, what
    # is left ("cuda error: an illegal instruction was encountered") must not pass for an illegal memory access.
    ("cuda-illegal-instruction", "index-tts/index-tts#336"),
])
def test_what_is_left_must_still_agree_in_the_words_that_say_which_error(index, guide, source):
    # A guard: it held before boilerplate was removed too.
    assert find_likely(index, _root(_line(index, guide, source)), exclude=frozenset({guide})) is None


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
