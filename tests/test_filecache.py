"""The cache per guide file (kb.engine.filecache): after one guide file changes, a rebuild reads and
prepares only that file, and the index is the one a load from YAML builds."""
import os
import shutil

import pytest

from kb.engine.cache import load_index_cached, rebuild
from kb.engine.index import load_index
from tests.conftest import ROOT

N_FILES = 40


@pytest.fixture()
def base(tmp_path):
    """A knowledge base of real guide files, in their component folders."""
    root = tmp_path / "guides"
    for src in sorted((ROOT / "guides").rglob("*.yaml"))[:N_FILES]:
        dst = root / src.relative_to(ROOT / "guides")
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
    return root


def same_index(a, b):
    assert list(a.guides) == list(b.guides)
    assert (a.patterns, a.problems, a.paths, a.postings, a.doc_len, a.contexts, a.refs, a.boilerplate) == \
           (b.patterns, b.problems, b.paths, b.postings, b.doc_len, b.contexts, b.refs, b.boilerplate)
    assert all(a.guides[g] == b.guides[g] for g in a.guides)


def test_touching_one_guide_prepares_only_it_again(base, tmp_path):
    cache = tmp_path / "cache"
    files = sorted(str(p) for p in base.rglob("*.yaml"))
    _, first = rebuild(base, cache)
    assert first.prepared == files  # an empty cache: every file

    probe = files[len(files) // 2]
    st = os.stat(probe)
    os.utime(probe, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    index, again = rebuild(base, cache)
    assert again.prepared == [probe]
    same_index(index, load_index(base))  # from YAML, every file read

    _, none = rebuild(base, cache)
    assert none.prepared == []


def test_an_edit_is_served_and_a_removed_guide_is_gone(base, tmp_path):
    cache = tmp_path / "cache"
    before = load_index_cached(base, cache)
    files = sorted(base.rglob("*.yaml"))
    edited, removed = files[3], files[7]
    gid = edited.stem
    text = edited.read_text(encoding="utf-8")
    title = before.guides[gid].title.en
    assert title and title in text
    edited.write_text(text.replace(title, title + " (edited)", 1), encoding="utf-8")
    removed.unlink()
    index, files_after = rebuild(base, cache)
    assert files_after.prepared == [str(edited)]
    assert index.guides[gid].title.en == title + " (edited)"
    assert removed.stem not in index.guides
    assert load_index_cached(base, cache).guides[gid].title.en == title + " (edited)"
    same_index(index, load_index(base))


def test_a_damaged_files_cache_is_prepared_again(base, tmp_path):
    cache = tmp_path / "cache"
    _, files = rebuild(base, cache)
    files.path.write_bytes(files.path.read_bytes()[:100])
    st = os.stat(next(base.rglob("*.yaml")))
    os.utime(next(base.rglob("*.yaml")), ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    index, again = rebuild(base, cache)
    assert len(again.prepared) == len(list(base.rglob("*.yaml")))
    same_index(index, load_index(base))
