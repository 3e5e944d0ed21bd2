"""Configuration: oslo.config options (:mod:`thermik.conf.opts`) and the typed
:class:`~thermik.conf.settings.Settings` the rest of Thermik receives."""
