"""The studio's Python-backend stub: the process that runs one instance of a user's model.py.

stub.py is the entry point; this package holds its parts (framing, tensors, requests, responses,
configuration, logging, BLS calls, execution). Users import triton_python_backend_utils, never this.
"""
