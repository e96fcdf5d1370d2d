"""Import BFCL's Python reference (../shared/data/bfcl/reference) outside its own package layout.

Used only by the golden generators in this folder (st_goldens_*.py), never by the product or its tests.

The reference copy leaves out a few modules and third-party packages that the checkers import but whose
behaviour they do not depend on; this module stands them in before importing:

* ``bfcl_eval.constants.model_config``: only ``MODEL_CONFIG_MAPPING[name].underscore_to_dot`` and, for
  the leaderboard tables, ``display_name``/``url``/``org``/``license``/prices are read. Two stand-in model
  names exist: ``plain`` (underscore_to_dot False) and ``oai`` (True).
* ``filelock`` (file locking around result files), ``pandas`` (only for the optional W&B upload) and
  ``overrides.final`` (a decorator) are replaced by no-ops.
* ``rank_bm25`` must be the real package, version 0.2.2 as pinned by BFCL (``pip install rank_bm25==0.2.2``),
  or pass ``RANK_BM25_PY=/path/to/rank_bm25.py`` (the file of tag 0.2.2). Only the memory generator needs it.

The reference package is copied into a temporary folder whose ``bfcl_eval/data`` points at the BFCL data,
because ``eval_config`` resolves the data folder from the package location and creates result folders
under ``BFCL_PROJECT_ROOT`` (set to the same temporary folder) at import time.
"""

import atexit
import importlib.util
import os
import shutil
import sys
import tempfile
import types
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def bfcl_dir() -> Path:
    base = os.environ.get("ENVACE_DATA_DIR") or str(REPO_ROOT.parent / "shared" / "data")
    path = Path(base) / "bfcl"
    if not (path / "reference" / "bfcl_eval").is_dir():
        sys.exit(f"BFCL reference not found under {path} (set ENVACE_DATA_DIR to the folder holding bfcl/)")
    return path


class _ModelConfig:
    def __init__(self, name: str, underscore_to_dot: bool):
        self.model_name = name
        self.display_name = name
        self.url = "https://example.invalid/" + name
        self.org = "test"
        self.license = "n/a"
        self.input_price = None
        self.output_price = None
        self.is_fc_model = True
        self.underscore_to_dot = underscore_to_dot


MODEL_CONFIG_MAPPING = {
    "plain": _ModelConfig("plain", False),
    "oai": _ModelConfig("oai", True),
}


def _stub(name: str, **attrs) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    sys.modules[name] = module
    return module


class _NoLock:
    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_prepared = False


def prepare(need_rank_bm25: bool = False) -> Path:
    """Make ``import bfcl_eval…`` work; returns the BFCL data folder."""
    global _prepared
    data = bfcl_dir()
    if _prepared:
        return data
    work = Path(tempfile.mkdtemp(prefix="bfcl-ref-"))
    atexit.register(shutil.rmtree, work, True)
    shutil.copytree(data / "reference" / "bfcl_eval", work / "bfcl_eval")
    (work / "bfcl_eval" / "data").symlink_to(data / "data", target_is_directory=True)
    os.environ["BFCL_PROJECT_ROOT"] = str(work / "project")
    sys.path.insert(0, str(work))

    _stub("bfcl_eval.constants.model_config", MODEL_CONFIG_MAPPING=MODEL_CONFIG_MAPPING)
    if "filelock" not in sys.modules:
        try:
            import filelock  # noqa: F401
        except ImportError:
            _stub("filelock", FileLock=_NoLock)
    if "pandas" not in sys.modules:
        try:
            import pandas  # noqa: F401
        except ImportError:
            _stub("pandas")
    try:
        import overrides  # noqa: F401
    except ImportError:
        _stub("overrides", final=lambda f: f, override=lambda f: f)

    if need_rank_bm25:
        path = os.environ.get("RANK_BM25_PY")
        if path:
            spec = importlib.util.spec_from_file_location("rank_bm25", path)
            module = importlib.util.module_from_spec(spec)
            sys.modules["rank_bm25"] = module
            spec.loader.exec_module(module)
        else:
            try:
                import rank_bm25  # noqa: F401
            except ImportError:
                sys.exit("rank_bm25 0.2.2 is needed: pip install rank_bm25==0.2.2, or set RANK_BM25_PY=/path/to/rank_bm25.py")
    _prepared = True
    return data
