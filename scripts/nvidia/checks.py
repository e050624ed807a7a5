"""What the hand-run checks of this folder share: each check reported as `ok` or `FAIL` with what it saw, Triton's
errors matched by their words, and the closing `N/M passed` line with its exit code."""

import sys

from tritonclient.utils import InferenceServerException

results = []


def check(name):
    """Runs the decorated function at once as the check `name`; a failure is reported and the run goes on."""

    def wrap(fn):
        try:
            fn()
            results.append(True)
            print(f"ok    {name}")
        except Exception as e:  # noqa: BLE001 - every failure is reported, the run goes on
            results.append(False)
            print(f"FAIL  {name}: {type(e).__name__}: {str(e)[:300]}")
        return fn

    return wrap


def expect_error(fn, *fragments):
    """The message of the InferenceServerException `fn` raises, which must hold every fragment."""
    try:
        fn()
    except InferenceServerException as e:
        message = e.message() or ""
        for fragment in fragments:
            assert fragment in message, f"error {message!r} lacks {fragment!r}"
        return message
    raise AssertionError("no error")


def finish():
    """Prints `N/M passed` and exits 1 when any check failed."""
    passed = sum(results)
    print(f"{passed}/{len(results)} passed")
    sys.exit(0 if passed == len(results) else 1)
