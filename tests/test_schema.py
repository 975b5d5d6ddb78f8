"""One value at a time: what the guide models accept and refuse."""
import pytest
from pydantic import ValidationError

from schema.models import Condition, L10n, Reference, Signature


@pytest.mark.parametrize("text", ["see [x](javascript:alert(1))", "x <b>bold</b>", "[x]: data:text/html,abc\n\n[y][x]",
                                  "<javascript:alert(1)>", "<img src=x onerror=alert(1)>"])
def test_prose_refuses_html_and_unsafe_links(text):
    with pytest.raises(ValidationError):
        L10n(en=text)


# Every link and image, whatever its scheme: Markdown ones, and the bare URLs, www. and e-mail
# addresses that GitHub-flavoured Markdown (what Streamlit renders) turns into links by itself.
@pytest.mark.parametrize("text", ["a [ok](https://x.y/z)", "see ![logo](https://evil.example/p.png) here", "see http://evil.example/x",
                                  "see https://evil.example/x", "go to www.evil.example", "mailto:alice@example.com",
                                  "write to alice@example.com", "<https://x.y>", "[a](/relative)", "![a](p.png)"])
def test_prose_refuses_every_link_and_image(text):
    with pytest.raises(ValidationError) as info:
        L10n(en=text)
    assert "link" in str(info.value) or "image" in str(info.value)


@pytest.mark.parametrize("text", ["torch<2.4 and vllm>0.5", "a < b and c > d", "`<pad>` token",
                                  "`pip install -i https://pypi.org/simple x`", "use @torch.compile; torch@2.1",
                                  "ratio 3:1, c10::Error", "see `www.x.y` and `a@b.co`"])
def test_prose_keeps_ordinary_text(text):
    assert L10n(en=text).en == text


def test_language_fallback_is_reported():
    assert L10n(zh="只有中文").get("en") == ("只有中文", "zh")
    with pytest.raises(ValidationError):
        L10n(en="  ", zh="")


@pytest.mark.parametrize("url", ["javascript:alert(1)", "data:text/html,x", "http://example.com", "https://x.y/<script>",
                                 # Markdown smuggled through the URL, which the app once put into a Markdown link
                                 "https://x.y/a)![img](https://evil.example/p.png)", "https://x.y/a)[b](javascript:x)",
                                 "https://github.com@evil.example/", "https://x.y/a b", "https://localhost/", "https://x.y/a'b"])
def test_reference_urls_must_be_https(url):
    with pytest.raises(ValidationError):
        Reference(ref="a/b#1", url=url)


@pytest.mark.parametrize("url", ["https://github.com/vllm-project/vllm/issues/123", "https://docs.vllm.ai/en/v0.6.6/x.html#a-b",
                                 "https://x.y:8443/a?b=1&c=%28d%29", "https://pytorch.org/get-started/locally/"])
def test_reference_urls_that_are_fine(url):
    assert Reference(ref="a/b#1", url=url).url == url


def test_reference_title_is_plain_text():
    with pytest.raises(ValidationError):
        Reference(ref="a/b#1", title="see [here](https://evil.example)")


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
