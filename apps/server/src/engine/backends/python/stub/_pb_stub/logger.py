"""pb_utils.Logger: log lines that reach the run and the server log with the caller's file and line."""

import enum
import sys

from .runtime import RUNTIME


class LogLevel(enum.IntEnum):
    INFO = 0
    WARNING = 1
    ERROR = 2
    VERBOSE = 3


_WIRE_LEVEL = {LogLevel.INFO: "info", LogLevel.WARNING: "warn", LogLevel.ERROR: "error", LogLevel.VERBOSE: "verbose"}


def _caller():
    frame = sys._getframe(3)  # _caller <- _emit <- Logger.log_* <- the model's code
    return frame.f_code.co_filename, frame.f_lineno


def _emit(message, level):
    file, line = _caller()
    header = {"type": "log", "level": _WIRE_LEVEL[LogLevel(level)], "message": str(message), "file": file, "line": line}
    if RUNTIME.writer is None:
        print(f"{file}:{line}: {header['level']}: {message}", file=sys.stderr)
    else:
        RUNTIME.send(header)


class Logger:
    """`Logger.log_info(msg)`, `log_warn`, `log_error`, `log_verbose`, or `Logger.log(msg, Logger.INFO)`."""

    LogLevel = LogLevel
    INFO = LogLevel.INFO
    WARNING = LogLevel.WARNING
    ERROR = LogLevel.ERROR
    VERBOSE = LogLevel.VERBOSE

    @staticmethod
    def log(message, level=LogLevel.INFO):
        _emit(message, level)

    @staticmethod
    def log_info(message):
        _emit(message, LogLevel.INFO)

    @staticmethod
    def log_warn(message):
        _emit(message, LogLevel.WARNING)

    @staticmethod
    def log_error(message):
        _emit(message, LogLevel.ERROR)

    @staticmethod
    def log_verbose(message):
        _emit(message, LogLevel.VERBOSE)
