"""Moldable jobs, application schedulers (Gas, static) and their experiments (docs/moldable.md)."""
