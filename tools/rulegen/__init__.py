"""The rule generator behind tools/build_rules.py: facts in, rules/api/*.toml out."""
