"""bench/summarise.py's parts: samples and statistics, tables, plots, and
one module per benchmark that turns its samples into tables and a plot."""
