"""One value at a time: what the guide models accept and refuse."""
import pytest
from pydantic import ValidationError

from schema.models import Condition, L10n, Reference, Signature


@pytest.mark.parametrize("text", ["see [x](javascript:alert(1))", "x <b>bold</b>", "[x]: data:text/html,abc\n\n[y][x]",
                                  "<javascript:alert(1)>", "<img src=x onerror=alert(1)>"])
def test_prose_refuses_html_and_unsafe_links(text):
    with pytest.raises(ValidationError):
        L10n(en=text)


@pytest.mark.parametrize("text", ["a [ok](https://x.y/z)", "torch<2.4 and vllm>0.5", "a < b and c > d", "`<pad>` token"])
def test_prose_keeps_ordinary_text(text):
    assert L10n(en=text).en == text


def test_language_fallback_is_reported():
    assert L10n(zh="只有中文").get("en") == ("只有中文", "zh")
    with pytest.raises(ValidationError):
        L10n(en="  ", zh="")


@pytest.mark.parametrize("url", ["javascript:alert(1)", "data:text/html,x", "http://example.com", "https://x.y/<script>"])
def test_reference_urls_must_be_https(url):
    with pytest.raises(ValidationError):
        Reference(ref="a/b#1", url=url)


@pytest.mark.parametrize("fields", [{"template": "x", "regex": "y", "anchor": "yyyyyyyy"}, {}, {"regex": "abc"},
                                    {"template": "   "}, {"template": "abcdefgh", "anchor": "abcdefgh"}])
def test_signature_needs_exactly_one_pattern(fields):
    with pytest.raises(ValidationError):
        Signature(id="s", **fields)


@pytest.mark.parametrize("fields", [{"kind": "package_version", "spec": ">=1"}, {"kind": "package_present", "package": "x", "spec": ">1"},
                                    {"kind": "cuda_version"}, {"kind": "compute_capability", "spec": "sm120"}])
def test_condition_fields(fields):
    with pytest.raises(ValidationError):
        Condition(**fields)
