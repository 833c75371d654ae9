"""The runebook language front end: grammar, parser, AST with spans, YAML with positions."""
