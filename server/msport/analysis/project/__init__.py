"""The whole program: module summaries, their links, and what each module learns from the others."""
