"""The language server front end (pygls); it calls the analysis core and formats LSP objects."""
