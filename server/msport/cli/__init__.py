"""The command line: check, serve, rules, explain."""
