"""Modules with errors: a helper with a type error, an import cycle, a
missing module (tests/lit/Frontend/modules-errors.test)."""
