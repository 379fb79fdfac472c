"""Statistics from a run's games.csv: summary, pairwise table, errors, and the ranking shown in
the terminal.  Small separate modules, one job each."""
