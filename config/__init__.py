"""Configuration: typed settings (:mod:`config.schema`) and the one loader (:mod:`config.loader`).

The embedded default is ``config/default.toml``.
"""
