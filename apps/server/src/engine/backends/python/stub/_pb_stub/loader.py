"""Loading the user's model.py, and reporting its exceptions with the user's own frames."""

import importlib.util
import os
import sys
import traceback

_STUB_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# Library frames between the stub and the user's code (module loading, futures, the asyncio loop).
_STDLIB = os.path.dirname(os.__file__)
_PLUMBING = tuple(os.path.join(_STDLIB, pkg) + os.sep for pkg in ("importlib", "concurrent", "asyncio"))
_THREADING = os.path.join(_STDLIB, "threading.py")


def load_model_class(model_file):
    """Imports model.py as module 'model' (as Triton does) and returns its TritonPythonModel class."""
    if not os.path.isfile(model_file):
        raise FileNotFoundError(f"model file {model_file} does not exist")
    model_dir = os.path.dirname(os.path.abspath(model_file))
    if model_dir not in sys.path:
        sys.path.insert(0, model_dir)
    spec = importlib.util.spec_from_file_location("model", model_file)
    module = importlib.util.module_from_spec(spec)
    sys.modules["model"] = module
    spec.loader.exec_module(module)
    cls = getattr(module, "TritonPythonModel", None)
    if not isinstance(cls, type):
        raise AttributeError(f"{model_file} defines no class TritonPythonModel")
    return cls


def _internal(filename):
    return (filename.startswith(_STUB_DIR) or filename.startswith("<frozen importlib")
            or filename.startswith(_PLUMBING) or filename == _THREADING)


def _prune(te, seen):
    if te is None or id(te) in seen:
        return
    seen.add(id(te))
    te.stack = traceback.StackSummary.from_list([f for f in te.stack if not _internal(f.filename)])
    _prune(te.__cause__, seen)
    _prune(te.__context__, seen)


def user_traceback(exc):
    """The exception's traceback as Python prints it, without the stub's and the library plumbing's frames."""
    te = traceback.TracebackException(type(exc), exc, exc.__traceback__)
    _prune(te, set())
    return "".join(te.format())


def describe(exc):
    """'ValueError: boom' (a TritonModelException shows its message alone)."""
    text = str(exc)
    if type(exc).__name__ == "TritonModelException":
        return text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def failure(exc, prefix):
    """The protocol's {message, traceback} for an exception of the user's code."""
    return {"message": f"{prefix}{describe(exc)}", "traceback": user_traceback(exc)}
