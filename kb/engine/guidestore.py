"""The served guides by id, kept encoded until used: a cached index of 10,000 guides loads in
a fraction of a second, and a paste touches only the few guides it matches."""
from __future__ import annotations

import pickle
import zlib
from collections.abc import Iterator, Mapping
from typing import NamedTuple

from schema.models import Guide


class GuideMeta(NamedTuple):
    """A guide's row in lists: enough to search, filter and link without decoding it."""

    component: str
    status: str
    tags: tuple[str, ...]
    compute_capability: tuple[str, ...]
    title_en: str
    title_zh: str
    search: str  # lower-case text a search box looks in


def guide_meta(g: Guide) -> GuideMeta:
    hw = g.applies_to.hardware
    search = " ".join([g.id, g.component, *g.tags, g.title.en or "", g.title.zh or "", g.summary.en or "", g.summary.zh or "",
                       *(s.template or s.anchor or "" for s in g.signatures)]).lower()
    return GuideMeta(g.component, g.status, tuple(g.tags), tuple(hw.compute_capability) if hw else (),
                     g.title.en or g.title.zh or g.id, g.title.zh or g.title.en or g.id, search)


class GuideStore(Mapping[str, Guide]):
    """The served guides by id: a read-only mapping in load order.

    A guide that comes from the on-disk index cache (kb/engine/cache.py) or from a worker process
    stays encoded (compressed JSON of exactly the fields its file set) until it is first
    used, and is kept once decoded: a cached index of 10,000 guides loads in a fraction
    of a second, and a paste touches only the few guides it matches.
    """

    __slots__ = ("_blobs", "_guides", "meta")

    def __init__(self, guides: dict[str, Guide] | None = None, blobs: dict[str, bytes] | None = None,
                 meta: dict[str, "GuideMeta"] | None = None):
        self._guides: dict[str, Guide] = dict(guides or {})
        # every id, in order; the encoded guide, or None while only the decoded one exists
        self._blobs: dict[str, bytes | None] = dict(blobs) if blobs is not None else dict.fromkeys(self._guides)
        # what lists and filters show, without decoding any guide (Browse, "other guides of this component")
        self.meta: dict[str, GuideMeta] = dict(meta) if meta is not None else {
            gid: guide_meta(g) for gid, g in self._guides.items()}

    @property
    def components(self) -> dict[str, str]:
        return {gid: m.component for gid, m in self.meta.items()}

    def __getitem__(self, gid: str) -> Guide:
        g = self._guides.get(gid)
        if g is None:
            blob = self._blobs[gid]
            assert blob is not None, gid  # None only while the decoded guide is kept, and it is not
            g = self._guides[gid] = decode_guide(blob)
        return g

    def __contains__(self, gid: object) -> bool:
        return gid in self._blobs

    def __iter__(self) -> Iterator[str]:
        return iter(self._blobs)

    def __len__(self) -> int:
        return len(self._blobs)

    def __repr__(self) -> str:
        return f"GuideStore({len(self)} guides, {len(self._guides)} decoded)"

    def __getstate__(self):
        blobs = {gid: blob if blob is not None else encode_guide(self._guides[gid]) for gid, blob in self._blobs.items()}
        return blobs, self.meta

    def __setstate__(self, state):
        self._blobs, self.meta = state
        self._guides = {}


def encode_guide(g: Guide) -> bytes:
    """JSON of the fields the file set (so that decoding gives an equal guide with the same
    fields set); pickle where JSON cannot carry a value."""
    try:
        return b"j" + zlib.compress(g.model_dump_json(exclude_unset=True).encode("utf-8"), 1)
    except (ValueError, TypeError, UnicodeError):
        return b"p" + zlib.compress(pickle.dumps(g, protocol=pickle.HIGHEST_PROTOCOL), 1)


def decode_guide(blob: bytes) -> Guide:
    data = zlib.decompress(blob[1:])
    return Guide.model_validate_json(data) if blob[:1] == b"j" else pickle.loads(data)


