"""The package's version, declared once.

A module of its own, importing nothing, so that any layer can name the version (in an
output's provenance, a generated header) without importing ``sitesim`` itself, whose
``__init__`` loads the API on demand and so sits above every layer. The package's
``__version__`` and the packaging metadata (``pyproject.toml``, ``dynamic``) read it
from here.
"""

__version__ = "0.1.0"
