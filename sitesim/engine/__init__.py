"""The event engine (SimPy), the machine and the site that connects jobs to a scheduler."""
