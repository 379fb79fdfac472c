"""The ``arena`` command line: one module per command family, all registered in ``main``."""
