"""Streamlit's `clear_cache` message, which any visitor can send, leaves the shared index and
feedback store alone: the next session uses the same ones, and the guides are not read again."""
from __future__ import annotations

import inspect

from streamlit.runtime import caching
from streamlit.runtime.app_session import AppSession

import components.feedback as feedback
import components.state as state
from tests.test_app import app, no_crash

SEED1 = "vllm-dsv41-sm120-no-common-block-size"


def _clear_cache_as_a_visitor_would() -> None:
    """What Streamlit does on a `clear_cache` BackMsg (AppSession._handle_clear_cache_request):
    the test fails if that handler comes to clear something else we would have to guard."""
    source = inspect.getsource(AppSession._handle_clear_cache_request)
    assert "cache_data.clear()" in source and "cache_resource.clear()" in source
    caching.cache_data.clear()
    caching.cache_resource.clear()


def test_clear_cache_neither_rebuilds_the_index_nor_reopens_the_store(monkeypatch):
    at = app(guide=SEED1)
    no_crash(at)
    index, store = state.get_index(), feedback.get_store()
    built: list[int] = []
    real_open = state.open_index
    monkeypatch.setattr(state, "open_index", lambda *a, **k: built.append(1) or real_open(*a, **k))
    _clear_cache_as_a_visitor_would()
    again = app(guide=SEED1)
    no_crash(again)
    assert again.title[0].value.startswith("DeepSeek-V4.1 on SM120")
    assert state.get_index() is index and feedback.get_store() is store
    assert built == []  # the guides were not read again
