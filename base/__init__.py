"""runebook: turn tabletop rulebooks into playable, checked, compiled content."""

__version__ = "0.1.0"
