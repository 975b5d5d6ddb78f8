"""What a 390 px phone screen needs that Streamlit does not do: the results brought on screen
after "Find the guide", and titles that wrap between words.

The scroll is a script of our own in st.html, as fixed text: deploy/'s Content-Security-Policy
allows inline scripts only by hash, and lists this file's (deploy/local.py, script_hashes()).
"""
from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import streamlit as st

SCRIPT = (Path(__file__).with_name("scroll_to_results.js")).read_text(encoding="utf-8")
FIRST_RESULT_KEY = "result_0"  # the first result card's container (its class: st-key-result_0)

# Titles (the page's heading, a card's bold title) break only where a line may break: a long
# identifier such as ProcessGroupNCCL moves to the next line whole. On a phone the page heading
# is smaller, so that such a word fits the width. A word wider than the screen still wraps
# (overflow-wrap: break-word acts only then) rather than widening the page.
STYLE = """<style>
h1, h2, h3, [data-testid="stMarkdownContainer"] strong {
  word-break: normal; overflow-wrap: break-word; hyphens: manual;
}
.st-key-result_0 { scroll-margin-top: 4.5rem; }  /* the scroll leaves it below Streamlit's top bar */
@media (max-width: 640px) {
  [data-testid="stMain"] h1 { font-size: 1.6rem; line-height: 1.25; }
}
</style>"""


def script_hashes() -> list[str]:
    """The CSP source of each inline script the app runs."""
    return [f"'sha256-{base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()}'"]


def styles() -> None:
    st.html(STYLE)


def scroll_to_results(n: int) -> None:
    """Drawn in the run that made new results or followed a click on "Find the guide": the
    element's mount runs the script. `n` changes the element (not the script, whose hash the CSP
    lists) so that a second click, whose element would otherwise be the same, scrolls again."""
    st.html(f"<!-- {int(n)} --><script>{SCRIPT}</script>", unsafe_allow_javascript=True)
