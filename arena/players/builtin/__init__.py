"""The built-in strategies, one small class per idea."""
