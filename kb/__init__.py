"""The troubleshooting engine, by concern (each package depends only on those listed before it):

- `kb.guides`: read guide files (load) and render a guide (render).
- `kb.env`: environment reports, GPUs and the conditions evaluated over them.
- `kb.engine`: parse a paste, compile signatures, index, match, explain.
- `kb.feedback`: redaction and the feedback store.
- `kb.authoring`: validation, skeletons, generated files.
- `kb.evaluation`: scoring the matcher on labelled cases.
- `kb.cli`: `python -m kb`.
"""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
