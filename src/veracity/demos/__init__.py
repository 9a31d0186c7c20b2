"""Runnable demonstrations (``veracity demo``); each module exposes ``main(args) -> int``."""
