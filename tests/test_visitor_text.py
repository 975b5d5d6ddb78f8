"""A visitor's comment reaches every author's Authors page: as plain text, never as markup."""
from __future__ import annotations

from kb.feedback.store import Store
from tests.test_app import app, no_crash

SEED1 = "vllm-dsv41-sm120-no-common-block-size"
# What Streamlit's Markdown would render: links (bare and Markdown), an image, strike-through,
# a colour directive, a Material icon, an emoji shortcode, maths, HTML.
HOSTILE = ("see https://evil.example/a and www.evil.example [click](https://evil.example/b) "
           "![px](https://evil.example/p.png) ~~struck~~ :red[ALERT] :material/warning: :rotating_light: "
           "$x^2$ <b>bold</b> **loud**")


def test_comments_are_plain_text_on_the_authors_page(tmp_path, monkeypatch):
    db = tmp_path / "kb.sqlite3"
    monkeypatch.setenv("KB_DB_PATH", str(db))
    with Store(f"sqlite+pysqlite:///{db}") as store:
        store.record_feedback(SEED1, True, [], "en", HOSTILE)
    at = app()
    at.switch_page("components/pages/authors.py").run()
    no_crash(at)
    assert [t.value for t in at.text] == [HOSTILE]  # shown verbatim, by an element that renders no Markdown
    markdown_like = [str(e.value) for kind in ("markdown", "caption", "info", "warning", "error", "success")
                     for e in getattr(at, kind)]
    markdown_like += [str(cell) for table in at.table for cell in table.value.to_numpy().ravel()]
    for fragment in ("evil.example", "struck", ":red[", ":material/", ":rotating_light:"):
        assert not any(fragment in s for s in markdown_like), fragment
