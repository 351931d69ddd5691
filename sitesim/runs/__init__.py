"""Whole runs: configuration records, the run functions and their output files."""
