import sys

try:
    from kb.cli import main
except ModuleNotFoundError as exc:  # run by a Python without the project's packages
    if exc.name and exc.name.split(".")[0] in ("kb", "schema"):
        raise
    sys.exit(f"python -m kb: this Python lacks the package {exc.name!r} the knowledge base needs.\n"
             "Run `bash scripts/install` once, then `.venv/bin/kb …` (or `.venv/bin/python -m kb …`).")

sys.exit(main())
