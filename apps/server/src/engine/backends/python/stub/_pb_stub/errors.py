"""TritonError (a response's error, with Triton's codes) and TritonModelException (what the API raises)."""

import enum


class _ErrorCode(enum.IntEnum):
    """TRITONSERVER_Error_Code, in Triton's order."""
    UNKNOWN = 0
    INTERNAL = 1
    NOT_FOUND = 2
    INVALID_ARG = 3
    UNAVAILABLE = 4
    UNSUPPORTED = 5
    ALREADY_EXISTS = 6
    CANCELLED = 7


class TritonError:
    """An error carried by an InferenceResponse: `TritonError(message, code=TritonError.INTERNAL)`."""

    UNKNOWN = _ErrorCode.UNKNOWN
    INTERNAL = _ErrorCode.INTERNAL
    NOT_FOUND = _ErrorCode.NOT_FOUND
    INVALID_ARG = _ErrorCode.INVALID_ARG
    UNAVAILABLE = _ErrorCode.UNAVAILABLE
    UNSUPPORTED = _ErrorCode.UNSUPPORTED
    ALREADY_EXISTS = _ErrorCode.ALREADY_EXISTS
    CANCELLED = _ErrorCode.CANCELLED

    def __init__(self, message, code=_ErrorCode.INTERNAL):
        if message is None or code is None:
            raise TypeError("TritonError(message, code): neither may be None")
        self._message = str(message)
        try:
            self._code = _ErrorCode(int(code))
        except ValueError:
            raise TypeError(f"TritonError: {code!r} is not one of TritonError's codes (UNKNOWN … CANCELLED)") from None

    def code(self):
        return self._code

    def message(self):
        return self._message

    def __str__(self):
        return self._message

    def __repr__(self):
        return f"TritonError({self._message!r}, TritonError.{self._code.name})"

    def to_wire(self):
        """The protocol's form: {message, code} with the code's name."""
        return {"message": self._message, "code": self._code.name}

    @classmethod
    def from_wire(cls, error):
        code = _ErrorCode.__members__.get(str(error.get("code", "INTERNAL")), _ErrorCode.INTERNAL)
        return cls(error.get("message", ""), code)


class TritonModelException(Exception):
    """Raised by the pb_utils API when a call is used wrongly; models may raise it too."""
