"""The one place the version lives; the jar's name and `drill_version()` are derived from it."""

__version__ = "0.1.0"
SCALA_BINARY = "2.13"
